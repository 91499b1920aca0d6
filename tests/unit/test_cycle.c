/* test_cycle.c — the allocate cycle end to end, plus the checker. */
#include <stdlib.h>

#include "builder.h"
#include "harness.h"

static struct fw_arena A;

static struct fw_plan *run(const struct fw_snapshot *s, const char *policy)
{
	return tb_plan(s, policy, &A);
}

static const struct fw_decision *start_of(const struct fw_plan *p, int job)
{
	return tb_decision(p, job);
}

static int node_of(const struct fw_plan *p, int job, int task)
{
	const struct fw_decision *d = start_of(p, job);
	return d ? p->allocs[d->alloc_first + task].node : -1;
}

/* 2 racks x 2 nodes x 8 GPUs (builder.h). */
static struct fw_snapshot *two_racks(void)
{
	return tb_two_racks();
}

TEST(single_gpu_jobs_bin_pack_onto_the_busiest_node)
{
	struct fw_snapshot *s = two_racks();
	int r = tb_job(s, "running", 0, 1, 3, 1000, 0);
	int n2[] = { 2 };
	tb_run(s, r, 1, n2, 0x7);
	int j1 = tb_job(s, "j1", 0, 1, 1, 1000, 10);
	int j2 = tb_job(s, "j2", 0, 1, 1, 1000, 11);
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(p->ndecisions, 2);
	ASSERT_EQ(node_of(p, j1, 0), 2);
	ASSERT_EQ(node_of(p, j2, 0), 2);
	ASSERT_EQ(p->allocs[start_of(p, j1)->alloc_first].gpu_mask, 0x8);
	fw_snapshot_free(s);
}

TEST(gang_waits_rather_than_starting_partially)
{
	struct fw_snapshot *s = two_racks();
	int r = tb_job(s, "running", 0, 4, 4, 1000, 0);
	int nodes[] = { 0, 1, 2, 3 };
	tb_run(s, r, 4, nodes, 0xf); /* 4 free GPUs left on every node */
	int g = tb_job(s, "gang", 0, 2, 8, 1000, 10);
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(p->ndecisions, 0);
	ASSERT_EQ(p->npending, 1);
	ASSERT_EQ(p->pending[0].job, g);
	ASSERT_EQ(p->pending[0].reason, FW_REASON_GANG_NO_FIT);
	ASSERT_EQ(p->pending[0].a, 16);
	ASSERT_EQ(p->pending[0].b, 16);
	fw_snapshot_free(s);
}

TEST(min_member_lets_part_of_a_gang_start)
{
	struct fw_snapshot *s = two_racks();
	int r = tb_job(s, "running", 0, 3, 8, 1000, 0);
	int nodes[] = { 0, 1, 2 };
	tb_run(s, r, 3, nodes, 0xff);
	int g = tb_job(s, "elastic", 0, 4, 4, 1000, 10);
	s->jobs[g].min_member = 2;
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(p->ndecisions, 1);
	ASSERT_EQ(start_of(p, g)->alloc_count, 2);
	ASSERT_EQ(node_of(p, g, 0), 3);
	fw_snapshot_free(s);
}

TEST(required_topology_is_never_violated)
{
	struct fw_snapshot *s = two_racks();
	int r = tb_job(s, "running", 0, 1, 8, 1000, 0);
	int n0[] = { 0 };
	tb_run(s, r, 1, n0, 0xff);
	/* 24 GPUs free overall, but at most 16 in one rack. */
	int g = tb_job(s, "rackbound", 0, 3, 8, 1000, 10);
	s->jobs[g].required_level = 0;
	int h = tb_job(s, "loose", 0, 3, 8, 1000, 20);
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT(start_of(p, g) == NULL);
	ASSERT_EQ(fw_plan_pending_for(p, g)->reason, FW_REASON_TOPOLOGY);
	ASSERT_EQ(fw_plan_pending_for(p, g)->b, 16);
	ASSERT(start_of(p, h) != NULL); /* no constraint: it may span racks */
	fw_snapshot_free(s);
}

/* A gang bound to a domain smaller than it needs says so even when the
 * cluster as a whole is short too: "needs 24 GPUs inside one rack; the
 * largest rack has 8 free" tells its owner what to change, "the cluster
 * had 8 free" does not (it read gang_no_fit before). */
TEST(a_gang_too_big_for_its_required_level_blames_the_level)
{
	struct fw_snapshot *s = two_racks();
	int r = tb_job(s, "running", 0, 3, 8, 1000, 0);
	int n3[] = { 0, 1, 2 };
	tb_run(s, r, 3, n3, 0xff); /* 8 GPUs free, all in rack rb */
	int g = tb_job(s, "rackbound", 0, 3, 8, 1000, 10);
	s->jobs[g].required_level = 0;
	int h = tb_job(s, "loose", 0, 3, 8, 1000, 20);
	char m[FW_REASON_TEXT_MAX];
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(fw_plan_pending_for(p, g)->reason, FW_REASON_TOPOLOGY);
	ASSERT_EQ(fw_plan_pending_for(p, g)->a, 24);
	ASSERT_EQ(fw_plan_pending_for(p, g)->b, 8);
	ASSERT_EQ(fw_plan_pending_for(p, h)->reason, FW_REASON_GANG_NO_FIT); /* no level: the cluster */
	ASSERT_STR_EQ(fw_reason_format_job(s, g, FW_REASON_TOPOLOGY, 24, 8, m, sizeof m),
		      "topology: the gang needs 24 GPUs inside one rack, its required level; the largest rack "
		      "has 8 free");
	s->jobs[g].required_level = FW_LEVEL_NODE;
	ASSERT_STR_EQ(fw_reason_format_job(s, g, FW_REASON_TOPOLOGY, 24, 8, m, sizeof m),
		      "topology: the gang needs 24 GPUs inside one node, its required level; the largest node "
		      "has 8 free");
	fw_snapshot_free(s);
}

/* A job of one task on a cluster with too few free GPUs waits for busy
 * GPUs, not as a gang that cannot fit (it read gang_no_fit: "needs 1
 * whole GPU at once"): gpus_busy with its GPUs and the free ones, and
 * when enough are free but spread over nodes, the text says so.  A gang
 * of 1-GPU tasks keeps gang_no_fit. */
TEST(a_one_task_job_waits_for_busy_gpus_and_a_gang_for_its_fit)
{
	for (int spread = 0; spread <= 1; spread++) {
		struct fw_snapshot *s = two_racks();
		int r = tb_job(s, "running", 0, 4, spread ? 4 : 8, 1000, 0);
		int nodes[] = { 0, 1, 2, 3 };
		tb_run(s, r, 4, nodes, spread ? 0xf : 0xff); /* 0, or 4 on each node, free */
		int one = tb_job(s, "one", 0, 1, spread ? 8 : 1, 1000, 10);
		int pair = tb_job(s, "pair", 0, spread ? 3 : 2, spread ? 8 : 1, 1000, 20);
		char m[FW_REASON_TEXT_MAX];
		struct fw_plan *p = run(s, NULL);
		ASSERT(p != NULL);
		const struct fw_pending *w = fw_plan_pending_for(p, one), *g = fw_plan_pending_for(p, pair);
		ASSERT(w != NULL && g != NULL);
		ASSERT_EQ(w->reason, FW_REASON_GPUS_BUSY);
		ASSERT_EQ(w->a, spread ? 8 : 1);
		ASSERT_EQ(w->b, spread ? 16 : 0);
		ASSERT_STR_EQ(fw_reason_format_job(s, one, w->reason, w->a, w->b, m, sizeof m),
			      spread ? "GPUs busy: it needs 8 GPUs on one node and the cluster has 16 free now, but "
				       "no node has that many free; running jobs hold the rest"
				     : "GPUs busy: it needs 1 GPU on one node and the cluster has 0 free now; running "
				       "jobs hold the rest");
		ASSERT_STR_EQ(fw_reason_name(w->reason), "gpus_busy");
		ASSERT_EQ(g->reason, FW_REASON_GANG_NO_FIT);
		ASSERT_EQ(g->a, spread ? 24 : 2);
		ASSERT_EQ(g->b, spread ? 16 : 0);
		fw_snapshot_free(s);
	}
}

TEST(preferred_level_picks_the_smallest_domain_that_fits)
{
	struct fw_snapshot *s = two_racks();
	int r = tb_job(s, "running", 0, 1, 2, 1000, 0);
	int n0[] = { 0 };
	tb_run(s, r, 1, n0, 0x3);
	/* rack ra has 14 free (6+8), rack rb 16: a 2x8 gang fits only rb
	 * whole-node-wise; a 2x4 gang should go to ra, the fuller rack. */
	int big = tb_job(s, "big", 0, 2, 8, 1000, 10);
	s->jobs[big].preferred_level = 0;
	int small = tb_job(s, "small", 0, 2, 4, 1000, 20);
	s->jobs[small].preferred_level = 0;
	s->jobs[small].required_level = 0;
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(p->ndecisions, 2);
	ASSERT(node_of(p, big, 0) >= 2 && node_of(p, big, 1) >= 2);
	ASSERT(node_of(p, small, 0) <= 1 && node_of(p, small, 1) <= 1);
	fw_snapshot_free(s);
}

TEST(fractional_gpus_pack_onto_a_shared_gpu)
{
	struct fw_snapshot *s = two_racks();
	int r = tb_job(s, "half", 0, 1, 1, 500, 0);
	int n3[] = { 3 };
	tb_run(s, r, 1, n3, 0x10); /* GPU 4 of b1 is half used */
	int f = tb_job(s, "quarter", 0, 1, 1, 250, 10);
	int g = tb_job(s, "quarter2", 0, 1, 1, 250, 11);
	int h = tb_job(s, "tenth", 0, 1, 1, 100, 12);
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(node_of(p, f, 0), 3);
	ASSERT_EQ(p->allocs[start_of(p, f)->alloc_first].gpu_mask, 0x10);
	ASSERT_EQ(p->allocs[start_of(p, g)->alloc_first].gpu_mask, 0x10);
	/* GPU 4 is now full: the next fraction opens one new GPU on b1. */
	ASSERT_EQ(node_of(p, h, 0), 3);
	ASSERT_NE(p->allocs[start_of(p, h)->alloc_first].gpu_mask, 0x10);
	fw_snapshot_free(s);
}

TEST(gpu_model_constraint)
{
	struct fw_snapshot *s = two_racks();
	tb_node(s, "c0", 4, "A100", "rc", NULL, NULL);
	int a = tb_job(s, "wants-a100", 0, 1, 2, 1000, 0);
	snprintf(s->jobs[a].groups[0].gpu_model, FW_NAME_MAX, "A100");
	int b = tb_job(s, "wants-b200", 0, 1, 1, 1000, 1);
	snprintf(s->jobs[b].groups[0].gpu_model, FW_NAME_MAX, "B200");
	int c = tb_job(s, "too-many-a100", 0, 1, 8, 1000, 2);
	snprintf(s->jobs[c].groups[0].gpu_model, FW_NAME_MAX, "A100");
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(node_of(p, a, 0), 4);
	ASSERT_EQ(fw_plan_pending_for(p, b)->reason, FW_REASON_GPU_MODEL);
	ASSERT_EQ(fw_plan_pending_for(p, b)->b, 0);
	ASSERT_EQ(fw_plan_pending_for(p, c)->reason, FW_REASON_GPU_MODEL);
	ASSERT_EQ(fw_plan_pending_for(p, c)->b, 4);
	fw_snapshot_free(s);
}

TEST(queue_limit_is_never_exceeded)
{
	struct fw_snapshot *s = two_racks();
	int q = tb_queue(s, "capped", -1, 2, 3, 1);
	for (int i = 0; i < 5; i++) {
		char n[16];
		snprintf(n, sizeof n, "c%d", i);
		tb_job(s, n, q, 1, 1, 1000, i);
	}
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(p->ndecisions, 3);
	ASSERT_EQ(p->queues[q].allocated.v[FW_RES_GPU], 3000);
	ASSERT_EQ(p->npending, 2);
	ASSERT_EQ(p->pending[0].reason, FW_REASON_OVER_QUOTA);
	ASSERT_EQ(p->pending[0].a, 1000);
	fw_snapshot_free(s);
}

/* QA (est-over-quota): a job over its queue's limit is expected when the
 * queue's running jobs, ending at their expected ends, leave the limit
 * room for it (no sooner, wherever GPUs are free), not "unknown".  Queue
 * capped (limit 8) runs r4a (4 GPUs, ends t=3600) and r4b (4 GPUs, ends
 * t=7200); w6 asks 6: after t=3600 the queue holds 4 (4 + 6 > 8), after
 * t=7200 none.  A job the limit never lets in (a running job with no
 * end holds the room) stays unknown, over quota. */
TEST(an_over_quota_job_is_expected_when_its_queue_frees_the_limit)
{
	struct fw_snapshot *s = fw_snapshot_new();
	int n0 = tb_node(s, "n0", 8, NULL, NULL, NULL, NULL);
	int n1 = tb_node(s, "n1", 8, NULL, NULL, NULL, NULL);
	tb_node(s, "n2", 8, NULL, NULL, NULL, NULL);
	int q = tb_queue(s, "capped", -1, 4, 8, 1);
	int o = tb_queue(s, "open", -1, 4, 4, 1);
	s->now = 100;
	int ra = tb_job(s, "r4a", q, 1, 4, 1000, 0);
	tb_run(s, ra, 1, &n0, 0x0f);
	s->jobs[ra].expected_runtime = 3600;
	int rb = tb_job(s, "r4b", q, 1, 4, 1000, 0);
	tb_run(s, rb, 1, &n1, 0x0f);
	s->jobs[rb].expected_runtime = 7200;
	int ro = tb_job(s, "ro", o, 1, 4, 1000, 0); /* no end: holds "open" */
	tb_run(s, ro, 1, &n0, 0xf0);
	int w = tb_job(s, "w6", q, 1, 6, 1000, 10);
	s->jobs[w].expected_runtime = 600;
	int v = tb_job(s, "v2", o, 1, 2, 1000, 10);
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	const struct fw_pending *pw = fw_plan_pending_for(p, w), *pv = fw_plan_pending_for(p, v);
	ASSERT(pw != NULL && pv != NULL);
	ASSERT_EQ(pw->reason, FW_REASON_OVER_QUOTA);
	ASSERT_EQ(pw->a, 6000);
	ASSERT_EQ(pw->expected_start, 7200);
	ASSERT_EQ(pw->unknown_why, FW_REASON_NONE);
	ASSERT_EQ(pv->reason, FW_REASON_OVER_QUOTA);
	ASSERT_EQ(pv->expected_start, FW_TIME_UNKNOWN);
	ASSERT_EQ(pv->unknown_why, FW_REASON_OVER_QUOTA);
	fw_snapshot_free(s);
}

/* Under a limit allocate starts, in its order, whatever fits the room
 * the limit leaves: a smaller job behind a larger one gets in first
 * when only part of the room frees, and the larger one then waits for
 * it too.  Queue "capped" (limit 8) runs r4a until t=1000 and r4b until
 * 3000, 4 GPUs each; b (8 GPUs) is first in order, s (4 GPUs, 5,000 s)
 * behind it.  At 1000 only s fits: it runs until 6000, and b gets in
 * then.  (Answered in try order, b held 3000..4000 and read 3000.) */
TEST(a_smaller_job_under_a_limit_gets_in_first_and_holds_the_larger_back)
{
	struct fw_snapshot *s = fw_snapshot_new();
	int n0 = tb_node(s, "n0", 8, NULL, NULL, NULL, NULL);
	tb_node(s, "n1", 8, NULL, NULL, NULL, NULL);
	tb_node(s, "n2", 8, NULL, NULL, NULL, NULL);
	int q = tb_queue(s, "capped", -1, 4, 8, 1);
	s->now = 100;
	int ra = tb_job(s, "r4a", q, 1, 4, 1000, 0);
	tb_run(s, ra, 1, &n0, 0x0f);
	s->jobs[ra].expected_runtime = 1000;
	int rb = tb_job(s, "r4b", q, 1, 4, 1000, 0);
	tb_run(s, rb, 1, &n0, 0xf0);
	s->jobs[rb].expected_runtime = 3000;
	int b = tb_job(s, "b8", q, 1, 8, 1000, 10);
	s->jobs[b].expected_runtime = 1000;
	int sm = tb_job(s, "s4", q, 1, 4, 1000, 20);
	s->jobs[sm].expected_runtime = 5000;
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	const struct fw_pending *pb = fw_plan_pending_for(p, b), *ps = fw_plan_pending_for(p, sm);
	ASSERT(pb != NULL && ps != NULL);
	ASSERT_EQ(pb->reason, FW_REASON_OVER_QUOTA);
	ASSERT_EQ(ps->reason, FW_REASON_OVER_QUOTA);
	ASSERT_EQ(ps->expected_start, 1000);
	ASSERT_EQ(pb->expected_start, 6000);
	fw_snapshot_free(s);
}

/* The same under a parent's limit, where free GPUs elsewhere would let
 * the job in sooner: a running sibling's end frees the parent's limit at
 * t=5000, so the job waits until then though node n1 is idle now. */
TEST(an_over_quota_job_waits_for_its_parents_limit)
{
	struct fw_snapshot *s = fw_snapshot_new();
	int n0 = tb_node(s, "n0", 8, NULL, NULL, NULL, NULL);
	tb_node(s, "n1", 8, NULL, NULL, NULL, NULL);
	int top = tb_queue(s, "org", -1, 8, 8, 1);
	int a = tb_queue(s, "a", top, 4, -1, 1);
	int b = tb_queue(s, "b", top, 4, -1, 1);
	s->now = 100;
	int r = tb_job(s, "rb", b, 1, 8, 1000, 0);
	tb_run(s, r, 1, &n0, 0xff);
	s->jobs[r].expected_runtime = 5000;
	int w = tb_job(s, "wa", a, 1, 4, 1000, 10);
	s->jobs[w].expected_runtime = 600;
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	const struct fw_pending *pw = fw_plan_pending_for(p, w);
	ASSERT(pw != NULL);
	ASSERT_EQ(pw->reason, FW_REASON_OVER_QUOTA);
	ASSERT_EQ(pw->expected_start, 5000);
	fw_snapshot_free(s);
}

/* An over-quota job behind another over-quota job of its queue: the
 * first holds the limit's room from its estimate to its end, and the
 * second is expected when both the queue's and its parent's limits let
 * it in (quota_at: per queue, the first end by which it has given back
 * enough; the latest of them).  Queue qa (limit 8) under org runs ra (6
 * GPUs, ends t=3600); sibling qb runs rb (4 GPUs, ends t=6000).  w4 (4
 * GPUs, 600 s) is expected at 3600 and holds 4 until 4200; w8 (8 GPUs)
 * fits qa's limit only at w4's end, t=4200, not at an end event.  With
 * org's limit at 10 (so it holds 10 of 10 with w4), w8 also waits for
 * rb's end: t=6000, the later of the two. */
TEST(an_over_quota_job_waits_for_the_holders_ahead_and_every_limit)
{
	for (int capped = 0; capped < 2; capped++) {
		struct fw_snapshot *s = fw_snapshot_new();
		int n0 = tb_node(s, "n0", 8, NULL, NULL, NULL, NULL);
		int n1 = tb_node(s, "n1", 8, NULL, NULL, NULL, NULL);
		tb_node(s, "n2", 8, NULL, NULL, NULL, NULL);
		int org = tb_queue(s, "org", -1, 12, capped ? 10 : -1, 1);
		int qa = tb_queue(s, "qa", org, 8, 8, 1);
		int qb = tb_queue(s, "qb", org, 4, -1, 1);
		s->now = 100;
		int ra = tb_job(s, "ra", qa, 1, 6, 1000, 0);
		tb_run(s, ra, 1, &n0, 0x3f);
		s->jobs[ra].expected_runtime = 3600;
		int rb = tb_job(s, "rb", qb, 1, 4, 1000, 0);
		tb_run(s, rb, 1, &n1, 0x0f);
		s->jobs[rb].expected_runtime = 6000;
		int w4 = tb_job(s, "w4", qa, 1, 4, 1000, 1);
		s->jobs[w4].expected_runtime = 600;
		int w8 = tb_job(s, "w8", qa, 1, 8, 1000, 2);
		s->jobs[w8].expected_runtime = 600;
		struct fw_plan *p = run(s, "fifo");
		ASSERT(p != NULL);
		ASSERT_EQ(fw_plan_pending_for(p, w4)->reason, FW_REASON_OVER_QUOTA);
		ASSERT_EQ(fw_plan_pending_for(p, w4)->expected_start, 3600);
		ASSERT_EQ(fw_plan_pending_for(p, w8)->expected_start, capped ? 6000 : 4200);
		fw_snapshot_free(s);
	}
}

/* A job ahead that waits for the limit holds its room only from its
 * own expected start (quota_at): queue capped (limit 8) runs r1 (4
 * GPUs, ends t=1000) and r2 (4 GPUs, ends t=5000); w8 (8 GPUs, 1000 s)
 * fits the limit at t=5000 and holds it until 6000; w1 behind it (1
 * GPU, 1000 s: the same runtime, so w8 is ahead by expansion factor)
 * fits at t=1000, in r1's room, as allocate would start it
 * then.  It read t=6000 while every job ahead counted from now. */
TEST(a_small_job_is_expected_in_the_room_before_a_big_one_starts)
{
	struct fw_snapshot *s = fw_snapshot_new();
	int n0 = tb_node(s, "n0", 8, NULL, NULL, NULL, NULL);
	int n1 = tb_node(s, "n1", 8, NULL, NULL, NULL, NULL);
	tb_node(s, "n2", 8, NULL, NULL, NULL, NULL);
	int q = tb_queue(s, "capped", -1, 8, 8, 1);
	s->now = 100;
	int r1 = tb_job(s, "r1", q, 1, 4, 1000, 0);
	tb_run(s, r1, 1, &n0, 0x0f);
	s->jobs[r1].expected_runtime = 1000;
	int r2 = tb_job(s, "r2", q, 1, 4, 1000, 0);
	tb_run(s, r2, 1, &n1, 0x0f);
	s->jobs[r2].expected_runtime = 5000;
	int w8 = tb_job(s, "w8", q, 1, 8, 1000, 1);
	s->jobs[w8].expected_runtime = 1000;
	int w1 = tb_job(s, "w1", q, 1, 1, 1000, 2);
	s->jobs[w1].expected_runtime = 1000;
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(fw_plan_pending_for(p, w8)->reason, FW_REASON_OVER_QUOTA);
	ASSERT_EQ(fw_plan_pending_for(p, w8)->expected_start, 5000);
	ASSERT_EQ(fw_plan_pending_for(p, w1)->reason, FW_REASON_OVER_QUOTA);
	ASSERT_EQ(fw_plan_pending_for(p, w1)->expected_start, 1000);
	fw_snapshot_free(s);
}

/* The limit's holders are answered as allocate starts them, in time
 * order: a job is never laid in before one answered earlier, whose room
 * it would take while that one counts it as its own.  Queue capped
 * (limit 8) runs r8 (8 GPUs, ends t=11000); waiting in try order
 * (expansion factor): s1 (1 GPU, 2000 s), b8 (8 GPUs, 1000 s), s2 (1
 * GPU, 5000 s), s3 (7 GPUs, 1000 s), each of which fits the limit alone
 * at 11000.  At 11000 s1 and s2 start (b8 and s3 do not fit beside
 * them); at 13000 s1 ends and s3 gets the 7 GPUs; b8 waits for s2's end,
 * 16000.  Each answered once in the order of its time alone, b8 read
 * 13000 (s2 laid in at 11000 after it, running across its hold) and s3
 * 14000, behind b8's hold. */
TEST(the_limit_holders_are_answered_in_time_order)
{
	struct fw_snapshot *s = fw_snapshot_new();
	int n0 = tb_node(s, "n0", 8, NULL, NULL, NULL, NULL);
	tb_node(s, "n1", 8, NULL, NULL, NULL, NULL);
	tb_node(s, "n2", 8, NULL, NULL, NULL, NULL);
	int q = tb_queue(s, "capped", -1, 4, 8, 1);
	s->now = 10000;
	int r = tb_job(s, "r8", q, 1, 8, 1000, 0);
	tb_run(s, r, 1, &n0, 0xff);
	s->jobs[r].expected_runtime = 11000;
	int s1 = tb_job(s, "s1", q, 1, 1, 1000, 0);
	s->jobs[s1].expected_runtime = 2000;
	int b8 = tb_job(s, "b8", q, 1, 8, 1000, 6000);
	s->jobs[b8].expected_runtime = 1000;
	int s2 = tb_job(s, "s2", q, 1, 1, 1000, 0);
	s->jobs[s2].expected_runtime = 5000;
	int s3 = tb_job(s, "s3", q, 1, 7, 1000, 8500);
	s->jobs[s3].expected_runtime = 1000;
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	const struct fw_pending *w[4] = { fw_plan_pending_for(p, s1), fw_plan_pending_for(p, b8),
					  fw_plan_pending_for(p, s2), fw_plan_pending_for(p, s3) };
	for (int k = 0; k < 4; k++) {
		ASSERT(w[k] != NULL);
		ASSERT_EQ(w[k]->reason, FW_REASON_OVER_QUOTA);
	}
	ASSERT_EQ(w[0]->expected_start, 11000);
	ASSERT_EQ(w[2]->expected_start, 11000);
	ASSERT_EQ(w[3]->expected_start, 13000);
	ASSERT_EQ(w[1]->expected_start, 16000);
	fw_snapshot_free(s);
}

/* Every over-quota job is answered, not only the first 256 of a cycle
 * (quota_at, O(log) per job): queue capped (limit 8) runs r8 (8 GPUs,
 * ends t=1000); 300 waiting 8-GPU jobs of 100 s each fit the limit one
 * after the other: job k at t=1000 + 100 k, the last at t=30900. */
TEST(every_over_quota_job_gets_an_estimate)
{
	struct fw_snapshot *s = fw_snapshot_new();
	int n0 = tb_node(s, "n0", 8, NULL, NULL, NULL, NULL);
	tb_node(s, "n1", 8, NULL, NULL, NULL, NULL);
	int q = tb_queue(s, "capped", -1, 8, 8, 1);
	int w[300];
	char name[16];
	s->now = 100;
	int r = tb_job(s, "r8", q, 1, 8, 1000, 0);
	tb_run(s, r, 1, &n0, 0xff);
	s->jobs[r].expected_runtime = 1000;
	for (int k = 0; k < 300; k++) {
		snprintf(name, sizeof name, "w%03d", k);
		w[k] = tb_job(s, name, q, 1, 8, 1000, 1 + k);
		s->jobs[w[k]].expected_runtime = 100;
	}
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	for (int k = 0; k < 300; k++) {
		const struct fw_pending *pk = fw_plan_pending_for(p, w[k]);
		ASSERT(pk != NULL);
		ASSERT_EQ(pk->reason, FW_REASON_OVER_QUOTA);
		ASSERT_EQ(pk->expected_start, 1000 + 100 * k);
	}
	fw_snapshot_free(s);
}

/* A job whose answer lies past the old walk's bound (4,096 steps a
 * job, 131,072 a cycle) gets it exactly (the room treaps, quota_at):
 * queue capped (limit 8) runs l4 (4 GPUs, ends t=1,000,000) and m4 (4
 * GPUs, ends t=1000); 2,100 waiting 4-GPU jobs of 100 s take m4's half
 * one after the other, job k from t=1000 + 100 k, the last ending at
 * t=211,000; b8 (8 GPUs) behind them waits for l4's end; x4 (4 GPUs)
 * behind b8 fits at t=211,000, before b8 starts.  It read b8's end
 * (1,000,100): the walk passed its bound, and b8 was counted from now. */
TEST(a_job_far_down_a_limit_gets_the_exact_room_before_a_later_holder)
{
	enum { NW = 2100 };
	struct fw_snapshot *s = fw_snapshot_new();
	int n0 = tb_node(s, "n0", 8, NULL, NULL, NULL, NULL);
	tb_node(s, "n1", 8, NULL, NULL, NULL, NULL);
	int q = tb_queue(s, "capped", -1, 8, 8, 1);
	int *w = calloc(NW, sizeof *w);
	char name[16];
	ASSERT(w != NULL);
	s->now = 100;
	int l4 = tb_job(s, "l4", q, 1, 4, 1000, 0);
	tb_run(s, l4, 1, &n0, 0x0f);
	s->jobs[l4].expected_runtime = 1000000;
	int m4 = tb_job(s, "m4", q, 1, 4, 1000, 0);
	tb_run(s, m4, 1, &n0, 0xf0);
	s->jobs[m4].expected_runtime = 1000;
	for (int k = 0; k < NW; k++) {
		snprintf(name, sizeof name, "w%04d", k);
		w[k] = tb_job(s, name, q, 1, 4, 1000, 1 + k);
		s->jobs[w[k]].expected_runtime = 100;
	}
	int b8 = tb_job(s, "b8", q, 1, 8, 1000, NW + 1);
	s->jobs[b8].expected_runtime = 100;
	int x4 = tb_job(s, "x4", q, 1, 4, 1000, NW + 2);
	s->jobs[x4].expected_runtime = 100;
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	for (int k = 0; k < NW; k++)
		ASSERT_EQ(fw_plan_pending_for(p, w[k])->expected_start, 1000 + 100 * k);
	ASSERT_EQ(fw_plan_pending_for(p, b8)->reason, FW_REASON_OVER_QUOTA);
	ASSERT_EQ(fw_plan_pending_for(p, b8)->expected_start, 1000000);
	ASSERT_EQ(fw_plan_pending_for(p, x4)->reason, FW_REASON_OVER_QUOTA);
	ASSERT_EQ(fw_plan_pending_for(p, x4)->expected_start, 1000 + 100 * NW);
	free(w);
	fw_snapshot_free(s);
}

/* A queue that limits GPUs and CPU lets a job in only when both have
 * room at once (room_at asks each resource until they agree): queue
 * capped (8 GPUs, 8 cores) runs ra (4 GPUs, 1 core, ends t=1000) and rb
 * (4 GPUs, 7 cores, ends t=2000); h8 (8 GPUs, no CPU) waits for both:
 * t=2000 to 3000.  x (4 GPUs, 2 cores) has its GPUs at t=1000 but not
 * its cores (7 + 2 of 8), its cores at t=2000 but not its GPUs (h8
 * holds 8), and both at t=3000. */
TEST(a_job_under_two_limits_waits_until_both_have_room)
{
	struct fw_snapshot *s = fw_snapshot_new();
	int n0 = tb_node(s, "n0", 8, NULL, NULL, NULL, NULL);
	tb_node(s, "n1", 8, NULL, NULL, NULL, NULL);
	tb_node(s, "n2", 8, NULL, NULL, NULL, NULL);
	int q = tb_queue(s, "capped", -1, 8, 8, 1);
	s->queues[q].limit.v[FW_RES_CPU] = 8000;
	s->now = 100;
	int ra = tb_job(s, "ra", q, 1, 4, 1000, 0);
	s->jobs[ra].groups[0].cpu_milli = 1000;
	tb_run(s, ra, 1, &n0, 0x0f);
	s->jobs[ra].start_time = 100;
	s->jobs[ra].expected_runtime = 900;
	int rb = tb_job(s, "rb", q, 1, 4, 1000, 0);
	s->jobs[rb].groups[0].cpu_milli = 7000;
	tb_run(s, rb, 1, &n0, 0xf0);
	s->jobs[rb].start_time = 100;
	s->jobs[rb].expected_runtime = 1900;
	int h8 = tb_job(s, "h8", q, 1, 8, 1000, 1);
	s->jobs[h8].groups[0].cpu_milli = 0;
	s->jobs[h8].expected_runtime = 1000;
	int x = tb_job(s, "x", q, 1, 4, 1000, 2);
	s->jobs[x].groups[0].cpu_milli = 2000;
	s->jobs[x].expected_runtime = 1000;
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(fw_plan_pending_for(p, h8)->reason, FW_REASON_OVER_QUOTA);
	ASSERT_EQ(fw_plan_pending_for(p, h8)->expected_start, 2000);
	ASSERT_EQ(fw_plan_pending_for(p, x)->reason, FW_REASON_OVER_QUOTA);
	ASSERT_EQ(fw_plan_pending_for(p, x)->expected_start, 3000);
	fw_snapshot_free(s);
}

/* Under strict order the jobs behind the line's head were never tried
 * against the limit: they count it too.  fifo; queue qa (limit 8) runs
 * ra (6 GPUs, ends t=3600); w4 (4 GPUs, 1 h) heads the line over the
 * limit, then w2 (2 GPUs, 30 min), then w8 (8 GPUs).  At t=3600 w4 and
 * w2 start; w8 fits the limit only once w4 ends, at t=7200 (it read
 * t=3600, beside them). */
TEST(jobs_behind_a_strict_line_count_the_queue_limit)
{
	struct fw_snapshot *s = fw_snapshot_new();
	int a = tb_node(s, "a", 8, NULL, NULL, NULL, NULL);
	int b = tb_node(s, "b", 8, NULL, NULL, NULL, NULL);
	int q = tb_queue(s, "qa", -1, 8, 8, 1);
	int o = tb_queue(s, "qb", -1, 8, -1, 1);
	s->now = 10;
	int ra = tb_job(s, "ra", q, 1, 6, 1000, 0);
	tb_run(s, ra, 1, &a, 0x3f);
	s->jobs[ra].expected_runtime = 3600;
	int rb = tb_job(s, "rb", o, 1, 8, 1000, 0);
	tb_run(s, rb, 1, &b, 0xff);
	s->jobs[rb].expected_runtime = 10800;
	int w4 = tb_job(s, "w4", q, 1, 4, 1000, 0);
	s->jobs[w4].expected_runtime = 3600;
	int w2 = tb_job(s, "w2", q, 1, 2, 1000, 1);
	s->jobs[w2].expected_runtime = 1800;
	int w8 = tb_job(s, "w8", q, 1, 8, 1000, 2);
	s->jobs[w8].expected_runtime = 1800;
	struct fw_plan *p = run(s, "fifo");
	ASSERT(p != NULL);
	ASSERT_EQ(fw_plan_pending_for(p, w4)->reason, FW_REASON_OVER_QUOTA);
	ASSERT_EQ(fw_plan_pending_for(p, w4)->expected_start, 3600);
	ASSERT_EQ(fw_plan_pending_for(p, w2)->reason, FW_REASON_HEAD_OF_LINE);
	ASSERT_EQ(fw_plan_pending_for(p, w2)->expected_start, 3600);
	ASSERT_EQ(fw_plan_pending_for(p, w8)->reason, FW_REASON_HEAD_OF_LINE);
	ASSERT_EQ(fw_plan_pending_for(p, w8)->expected_start, 7200);
	fw_snapshot_free(s);
}

TEST(fair_share_splits_by_weight)
{
	struct fw_snapshot *s = fw_snapshot_new();
	tb_node(s, "n0", 8, NULL, NULL, NULL, NULL);
	tb_node(s, "n1", 4, NULL, NULL, NULL, NULL);
	int a = tb_queue(s, "a", -1, 0, -1, 2);
	int b = tb_queue(s, "b", -1, 0, -1, 1);
	for (int i = 0; i < 20; i++) {
		char n[16];
		snprintf(n, sizeof n, "a%d", i);
		tb_job(s, n, a, 1, 1, 1000, i);
		snprintf(n, sizeof n, "b%d", i);
		tb_job(s, n, b, 1, 1, 1000, i);
	}
	s->config.usage_weight = 0;
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(p->ndecisions, 12);
	ASSERT_EQ(p->queues[a].allocated.v[FW_RES_GPU], 8000);
	ASSERT_EQ(p->queues[b].allocated.v[FW_RES_GPU], 4000);
	ASSERT_NEAR(p->queues[a].fair[FW_RES_GPU], 8000, 1);
	ASSERT_EQ(p->pending[0].reason, FW_REASON_FAIRSHARE_ORDER);
	fw_snapshot_free(s);
}

TEST(three_level_fair_share_with_limits)
{
	struct fw_snapshot *s = fw_snapshot_new();
	for (int i = 0; i < 4; i++) {
		char n[8];
		snprintf(n, sizeof n, "n%d", i);
		tb_node(s, n, 8, NULL, NULL, NULL, NULL);
	}
	int org = tb_queue(s, "org", -1, 32, -1, 1);
	int x = tb_queue(s, "x", org, 8, -1, 1);
	int y = tb_queue(s, "y", org, 8, -1, 1);
	int x1 = tb_queue(s, "x1", x, 4, -1, 1);
	int x2 = tb_queue(s, "x2", x, 4, 6, 1);
	int y1 = tb_queue(s, "y1", y, 8, -1, 1);
	for (int i = 0; i < 40; i++) {
		char n[16];
		int qs[] = { x1, x2, y1 };
		snprintf(n, sizeof n, "j%d", i);
		tb_job(s, n, qs[i % 3], 1, 1, 1000, i);
	}
	s->config.usage_weight = 0;
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(p->ndecisions, 32);
	ASSERT_EQ(p->queues[x2].allocated.v[FW_RES_GPU], 6000);
	/* y1 only asks for 13 (40 jobs round-robin over 3 queues), so x
	 * takes the rest: 19 = x2 at its limit 6 + x1 13. */
	ASSERT_EQ(p->queues[x].allocated.v[FW_RES_GPU], 19000);
	ASSERT_EQ(p->queues[y].allocated.v[FW_RES_GPU], 13000);
	ASSERT_EQ(p->queues[x1].allocated.v[FW_RES_GPU], 13000);
	ASSERT_NEAR(p->queues[x1].fair[FW_RES_GPU], 13000, 1);
	fw_snapshot_free(s);
}

TEST(fifo_blocks_at_the_head_of_the_line)
{
	struct fw_snapshot *s = two_racks();
	int big = tb_job(s, "big", 0, 5, 8, 1000, 0);
	int small = tb_job(s, "small", 0, 1, 1, 1000, 1);
	struct fw_plan *p = run(s, "fifo");
	ASSERT(p != NULL);
	ASSERT_EQ(p->ndecisions, 0);
	ASSERT_EQ(fw_plan_pending_for(p, big)->reason, FW_REASON_GANG_NO_FIT);
	ASSERT_EQ(fw_plan_pending_for(p, small)->reason, FW_REASON_HEAD_OF_LINE);
	p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT(start_of(p, small) != NULL);
	fw_snapshot_free(s);
}

/* Every policy stops at the budget, the fair-share ones and the ones of
 * one global line (fifo, slurm) alike, and the rest wait for it. */
TEST(max_starts_budget)
{
	const char *pols[] = { "fairway", "kai", "slurm", "fifo" };
	for (int k = 0; k < 4; k++) {
		struct fw_snapshot *s = two_racks();
		for (int i = 0; i < 6; i++) {
			char n[8];
			snprintf(n, sizeof n, "j%d", i);
			tb_job(s, n, 0, 1, 1, 1000, i);
		}
		s->config.max_starts = 4;
		struct fw_plan *p = run(s, pols[k]);
		ASSERT(p != NULL);
		ASSERT_EQ(p->ndecisions, 4);
		ASSERT_EQ(p->npending, 2);
		ASSERT_EQ(p->pending[0].reason, FW_REASON_CYCLE_LIMIT);
		ASSERT_EQ(p->pending[1].reason, FW_REASON_CYCLE_LIMIT);
		fw_snapshot_free(s);
	}
}

/* The snapshot planned again, in an arena of its own, gives plan p
 * byte for byte (decisions, allocations, pending entries). */
static void same_plan_again(const struct fw_snapshot *s, const char *policy, const struct fw_plan *p)
{
	struct fw_arena b;
	struct fw_plan *q = NULL;

	fw_arena_init(&b, 4096);
	ASSERT_OK(fw_cycle_run(s, fw_policy_find(policy), &b, &q));
	ASSERT_EQ(p->ndecisions, q->ndecisions);
	ASSERT_EQ(p->nallocs, q->nallocs);
	ASSERT_EQ(p->npending, q->npending);
	ASSERT_OK(memcmp(p->decisions, q->decisions, (size_t)p->ndecisions * sizeof *p->decisions));
	ASSERT_OK(memcmp(p->allocs, q->allocs, (size_t)p->nallocs * sizeof *p->allocs));
	ASSERT_OK(memcmp(p->pending, q->pending, (size_t)p->npending * sizeof *p->pending));
	fw_arena_release(&b);
}

static struct fw_snapshot *random_snapshot(uint32_t seed)
{
	struct fw_snapshot *s = fw_snapshot_new();
	const char *lv[] = { "block", "rack" };
	uint32_t x = seed * 2654435761u + 1;
#define RND() tb_xs32(&x)
	tb_levels(s, 2, lv);
	for (int i = 0; i < 24; i++) {
		char n[16], b[8], r[8];
		snprintf(n, sizeof n, "n%02d", i);
		snprintf(b, sizeof b, "b%d", i / 12);
		snprintf(r, sizeof r, "r%d", i / 4);
		int g = (RND() % 2) ? 8 : 4;
		tb_node(s, n, g, (RND() % 4) ? "H100" : "A100", b, r, NULL);
	}
	int root = tb_queue(s, "root", -1, 64, -1, 1);
	for (int q = 0; q < 4; q++) {
		char n[8];
		snprintf(n, sizeof n, "q%d", q);
		tb_queue(s, n, root, 16, (q == 3) ? 20 : -1, 1 + q);
	}
	for (int j = 0; j < 120; j++) {
		char n[16];
		int shapes[][2] = { { 1, 1 }, { 1, 2 }, { 1, 4 }, { 1, 8 }, { 2, 8 }, { 4, 8 }, { 3, 2 }, { 1, 1 } };
		int k = (int)(RND() % 8);
		snprintf(n, sizeof n, "j%03d", j);
		int id = tb_job(s, n, 1 + (int)(RND() % 4), shapes[k][0], shapes[k][1], 1000, (fw_time)j);
		if (RND() % 5 == 0) {
			s->jobs[id].groups[0].count = 1;
			s->jobs[id].groups[0].gpus = 1;
			s->jobs[id].groups[0].gpu_milli = 100 + (int)(RND() % 800);
		}
		s->jobs[id].required_level = (int8_t)((RND() % 3) - 1);
		s->jobs[id].preferred_level = (int8_t)((RND() % 3) - 1);
		s->jobs[id].priority = (int32_t)(RND() % 3);
		s->jobs[id].spread = RND() % 7 == 0;
		s->jobs[id].expected_runtime = (RND() % 4) ? 60 + (fw_time)(RND() % 3600) : 0;
	}
	s->now = 5000;
	/* a few running jobs with end times, so reservations have events */
	for (int n = 0; n < 24; n += 3) {
		char nm[16];
		snprintf(nm, sizeof nm, "run%02d", n);
		int id = tb_job(s, nm, 1 + n % 4, 1, 2, 1000, 0);
		tb_run(s, id, 1, &n, 0x3);
		s->jobs[id].start_time = 4000;
		s->jobs[id].expected_runtime = (RND() % 5) ? 500 + (fw_time)(RND() % 5000) : 0;
	}
#undef RND
	return s;
}

TEST(random_snapshots_keep_every_invariant_and_are_deterministic)
{
	int reservations = 0, back_reserved = 0, away_used = 0;
	for (uint32_t seed = 1; seed <= 60; seed++) {
		struct fw_snapshot *s = random_snapshot(seed);
		struct fw_arena b;
		struct fw_plan *p = run(s, NULL), *q = NULL;
		ASSERT(p != NULL);
		for (int i = 0; i < p->ndecisions; i++)
			reservations += p->decisions[i].kind == FW_DECIDE_RESERVE;
		fw_arena_init(&b, 4096);
		ASSERT_OK(fw_cycle_run(s, NULL, &b, &q));
		ASSERT_EQ(p->ndecisions, q->ndecisions);
		ASSERT_EQ(p->nallocs, q->nallocs);
		ASSERT_EQ(p->npending, q->npending);
		ASSERT_OK(memcmp(p->allocs, q->allocs, (size_t)p->nallocs * sizeof *p->allocs));
		ASSERT_OK(memcmp(p->pending, q->pending, (size_t)p->npending * sizeof *p->pending));
		for (int i = 0; i < p->ndecisions; i++)
			ASSERT_EQ(p->decisions[i].job, q->decisions[i].job);
		fw_arena_release(&b);
		ASSERT(run(s, "fifo") != NULL);
		ASSERT(run(s, "slurm") != NULL);
		ASSERT(run(s, "kai") != NULL);
		/* users taking turns inside each queue (five users, the running
		 * jobs' too): the checker's invariants, and the same plan twice */
		for (int32_t j = 0; j < s->njobs; j++)
			snprintf(s->jobs[j].user, sizeof s->jobs[j].user, "u%d", (int)(j * 7 % 5));
		s->config.user_fair_share = true;
		ASSERT(run(s, "kai") != NULL);
		p = run(s, NULL);
		ASSERT(p != NULL);
		fw_arena_init(&b, 4096);
		ASSERT_OK(fw_cycle_run(s, NULL, &b, &q));
		ASSERT_EQ(p->ndecisions, q->ndecisions);
		ASSERT_OK(memcmp(p->allocs, q->allocs, (size_t)p->nallocs * sizeof *p->allocs));
		ASSERT_OK(memcmp(p->pending, q->pending, (size_t)p->npending * sizeof *p->pending));
		fw_arena_release(&b);
		/* nodes out of service now, back later (fw_node.back_at), some
		 * with running jobs: the checker's invariants hold (nothing on
		 * them before they are back), conservative backfill too */
		for (int32_t n = 1; n < s->nnodes; n += 5) {
			s->nodes[n].back_at = s->now + 100 + (fw_time)(seed * 37 % 3000);
			if (n % 2)
				s->nodes[n].schedulable = false;
			else
				s->nodes[n].health = FW_HEALTH_DRAINING;
		}
		for (int cons = 0; cons < 2; cons++) {
			s->config.backfill_conservative = cons;
			ASSERT((p = run(s, NULL)) != NULL);
			for (int i = 0; i < p->ndecisions; i++)
				for (int32_t k = 0; p->decisions[i].kind == FW_DECIDE_RESERVE && k < p->decisions[i].alloc_count; k++)
					back_reserved += s->nodes[p->allocs[p->decisions[i].alloc_first + k].node].back_at > 0;
			ASSERT(run(s, "slurm") != NULL);
			ASSERT(run(s, "fifo") != NULL);
		}
		/* nodes in service that leave later (fw_node.away_at), back or
		 * not: nothing runs into a departure (the checker), and work
		 * that ends before it still lands there */
		for (int32_t n = 3; n < s->nnodes; n += 4) {
			if (!s->nodes[n].schedulable || s->nodes[n].health == FW_HEALTH_DRAINING)
				continue;
			s->nodes[n].away_at = s->now + 200 + (fw_time)(seed * 53 % 4000);
			s->nodes[n].back_at = n % 8 == 3 ? s->nodes[n].away_at + 900 : 0;
		}
		for (int cons = 0; cons < 2; cons++) {
			s->config.backfill_conservative = cons;
			ASSERT((p = run(s, NULL)) != NULL);
			for (int i = 0; i < p->ndecisions; i++)
				for (int32_t k = 0; k < p->decisions[i].alloc_count; k++)
					away_used += s->nodes[p->allocs[p->decisions[i].alloc_first + k].node].away_at > 0;
			ASSERT(run(s, "slurm") != NULL);
			ASSERT(run(s, "kai") != NULL);
		}
		fw_snapshot_free(s);
	}
	ASSERT(reservations > 20); /* the checker really saw reservations */
	ASSERT(back_reserved > 20); /* ... and some on nodes coming back */
	ASSERT(away_used > 20); /* ... and starts or reservations on nodes that leave */
}

/* The registry's name list (for hints) is its policies' names, in order. */
/* A count of exactly one takes the singular ("1 GPU", "1 job ahead"),
 * any other count the plural. */
TEST(reason_texts_count_one_in_the_singular)
{
	char m[FW_REASON_TEXT_MAX];

	ASSERT_STR_CONTAINS(fw_reason_format(FW_REASON_GPU_MODEL, 1, 0, m, sizeof m), "it needs 1 GPU of the requested");
	ASSERT_STR_CONTAINS(fw_reason_format(FW_REASON_GPU_MODEL, 11, 1, m, sizeof m), "it needs 11 GPUs of the requested");
	ASSERT_STR_CONTAINS(fw_reason_format(FW_REASON_GPU_MODEL, 0, 1, m, sizeof m), "it needs 0 GPUs of");
	ASSERT_STR_CONTAINS(fw_reason_format(FW_REASON_NO_RESOURCES, 1, 1, m, sizeof m), "(1 task; 1 node could hold");
	ASSERT_STR_CONTAINS(fw_reason_format(FW_REASON_NO_RESOURCES, 21, 31, m, sizeof m), "(21 tasks; 31 nodes could hold");
	ASSERT_STR_CONTAINS(fw_reason_format(FW_REASON_OVER_QUOTA, 1000, FW_RES_GPU, m, sizeof m), " 1 GPU over its GPU limit");
	ASSERT_STR_CONTAINS(fw_reason_format(FW_REASON_OVER_QUOTA, 1500, FW_RES_GPU, m, sizeof m), " 1.5 GPUs over");
	/* up to three decimals, in the unit a user thinks in: cores, GiB */
	ASSERT_STR_CONTAINS(fw_reason_format(FW_REASON_OVER_QUOTA, 2999999, FW_RES_CPU, m, sizeof m),
			    " 2999.999 cores over its CPU limit");
	ASSERT_STR_CONTAINS(fw_reason_format(FW_REASON_OVER_QUOTA, 2500, FW_RES_CPU, m, sizeof m),
			    " 2.5 cores over its CPU limit");
	ASSERT_STR_CONTAINS(fw_reason_format(FW_REASON_OVER_QUOTA, 1536, FW_RES_MEM, m, sizeof m),
			    " 1.5 GiB over its memory limit");
	ASSERT_STR_CONTAINS(fw_reason_format(FW_REASON_OVER_QUOTA, 800000000, FW_RES_GPU, m, sizeof m),
			    " 800000 GPUs over"); /* in full, not 8e+05 */
}

/* A gpu_model reason names the job's model; others read as without a job. */
TEST(gpu_model_reason_names_the_model)
{
	struct fw_snapshot *s = two_racks();
	int j = tb_job(s, "b", 0, 2, 8, 1000, 0);
	char m[FW_REASON_TEXT_MAX], w[FW_REASON_TEXT_MAX];

	snprintf(s->jobs[j].groups[0].gpu_model, FW_NAME_MAX, "B200");
	ASSERT_STR_EQ(fw_reason_format_job(s, j, FW_REASON_GPU_MODEL, 16, 0, m, sizeof m),
		      "GPU model: it needs 16 GPUs of model B200 and no node has that model");
	snprintf(s->nodes[3].gpu_model, FW_NAME_MAX, "B200"); /* one has: none free */
	ASSERT_STR_EQ(fw_reason_format_job(s, j, FW_REASON_GPU_MODEL, 16, 0, m, sizeof m),
		      "GPU model: it needs 16 GPUs of model B200 and only 0 are free");
	ASSERT_STR_EQ(fw_reason_format_job(s, j, FW_REASON_GPU_MODEL, 16, 8, m, sizeof m),
		      "GPU model: it needs 16 GPUs of model B200 and only 8 are free");
	ASSERT_STR_EQ(fw_reason_format_job(s, j, FW_REASON_TOPOLOGY, 16, 8, m, sizeof m),
		      fw_reason_format(FW_REASON_TOPOLOGY, 16, 8, w, sizeof w));
	s->jobs[j].groups[0].gpu_model[0] = '\0'; /* no model asked: the plain text */
	ASSERT_STR_EQ(fw_reason_format_job(s, j, FW_REASON_GPU_MODEL, 16, 0, m, sizeof m),
		      fw_reason_format(FW_REASON_GPU_MODEL, 16, 0, w, sizeof w));
	ASSERT_STR_EQ(fw_reason_format_job(NULL, -1, FW_REASON_GPU_MODEL, 16, 0, m, sizeof m), w);
	fw_snapshot_free(s);
}

TEST(policy_names_follow_the_registry)
{
	const struct fw_policy_ops *const *l = fw_policy_list();
	const char *const *n = fw_policy_names();
	int i = 0;

	for (; l[i] && n[i]; i++) {
		ASSERT_STR_EQ(n[i], l[i]->name);
		ASSERT(fw_policy_find(n[i]) == l[i]);
	}
	ASSERT(l[i] == NULL && n[i] == NULL);
	ASSERT(i >= 4);
}

TEST(checker_catches_an_over_committed_gpu)
{
	struct fw_snapshot *s = two_racks();
	tb_job(s, "a", 0, 1, 8, 1000, 0);
	tb_job(s, "b", 0, 1, 8, 1000, 1);
	struct fw_plan *p = run(s, NULL);
	struct fw_diag d;
	ASSERT(p != NULL);
	ASSERT_EQ(p->ndecisions, 2);
	p->allocs[1].node = p->allocs[0].node; /* corrupt: both on one node */
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "over-committed");
	fw_snapshot_free(s);
}

TEST(checker_refuses_decisions_that_point_outside)
{
	struct fw_snapshot *s = two_racks();
	tb_job(s, "a", 0, 2, 8, 1000, 0);
	struct fw_plan *p = run(s, NULL);
	struct fw_diag d;
	ASSERT(p != NULL);
	ASSERT_EQ(p->ndecisions, 1);
	p->decisions[0].alloc_first = p->nallocs; /* tasks past the end */
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "outside the plan's");
	p->decisions[0].alloc_first = 0;
	p->decisions[0].alloc_count = -1;
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "outside the plan's");
	p->decisions[0].alloc_count = 2;
	p->decisions[0].job = s->njobs;
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "out of range");
	p->decisions[0].job = 0;
	p->decisions[0].kind = FW_DECIDE_RESERVE + 7;
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "unknown decision kind");
	p->decisions[0].kind = FW_DECIDE_START;
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_OK);
	fw_snapshot_free(s);
}

TEST(checker_catches_a_partial_gang_and_a_missing_reason)
{
	struct fw_snapshot *s = two_racks();
	tb_job(s, "gang", 0, 2, 8, 1000, 0);
	tb_job(s, "blocked", 0, 4, 8, 1000, 1);
	struct fw_plan *p = run(s, NULL);
	struct fw_diag d;
	ASSERT(p != NULL);
	p->decisions[0].alloc_count = 1;
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "all-or-nothing");
	p->decisions[0].alloc_count = 2;
	p->npending = 0;
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "neither started nor has a reason");
	fw_snapshot_free(s);
}

/* ---- the checker, rule by rule ------------------------------------------
 * One valid plan (checker_scene: a gang and a small job start, a running
 * preemptible job, a blocked 4-node gang reserved for when it ends, a
 * pending job behind it), then one corruption at a time of the plan or of
 * the snapshot it was made for: the checker names each. */
enum { CS_RUN, CS_GANG, CS_SMALL, CS_BIG, CS_LATE };

static struct fw_snapshot *checker_scene(void)
{
	struct fw_snapshot *s = two_racks();
	int b1[] = { 3 };
	int j = tb_job(s, "run", 0, 1, 8, 1000, 0);

	s->jobs[j].preemptible = true;
	s->jobs[j].expected_runtime = 1000;
	tb_run(s, j, 1, b1, 0xff);
	j = tb_job(s, "gang", 0, 2, 8, 1000, 1);
	s->jobs[j].required_level = 0;
	s->jobs[j].expected_runtime = 500;
	j = tb_job(s, "small", 0, 1, 4, 1000, 2);
	s->jobs[j].expected_runtime = 500;
	j = tb_job(s, "big", 0, 4, 8, 1000, 3);
	s->jobs[j].expected_runtime = 100;
	j = tb_job(s, "late", 0, 1, 8, 1000, 4);
	s->jobs[j].expected_runtime = 100;
	s->now = 100;
	s->config.xfactor_cap_s = -1; /* submit order: the scene is the checker's */
	return s;
}

static struct fw_decision *decision(struct fw_plan *p, int job, enum fw_decision_kind k)
{
	for (int i = 0; i < p->ndecisions; i++)
		if (p->decisions[i].job == job && p->decisions[i].kind == k)
			return &p->decisions[i];
	return NULL;
}

static struct fw_pending *pending_of(struct fw_plan *p, int job)
{
	for (int i = 0; i < p->npending; i++)
		if (p->pending[i].job == job)
			return &p->pending[i];
	return NULL;
}

static struct fw_task_alloc *task(struct fw_plan *p, int job, enum fw_decision_kind k, int t)
{
	return &p->allocs[decision(p, job, k)->alloc_first + t];
}

static void c_unschedulable(struct fw_snapshot *s, struct fw_plan *p)
{
	s->nodes[task(p, CS_SMALL, FW_DECIDE_START, 0)->node].schedulable = false;
}
static void c_unhealthy(struct fw_snapshot *s, struct fw_plan *p)
{
	s->nodes[task(p, CS_SMALL, FW_DECIDE_START, 0)->node].health = FW_HEALTH_UNHEALTHY;
}
static void c_gpu_count(struct fw_snapshot *s, struct fw_plan *p)
{
	(void)s;
	task(p, CS_SMALL, FW_DECIDE_START, 0)->gpu_mask |= 0x80;
}
static void c_bad_gpu(struct fw_snapshot *s, struct fw_plan *p)
{
	struct fw_task_alloc *t = task(p, CS_SMALL, FW_DECIDE_START, 0);
	s->nodes[t->node].bad_gpu_mask = t->gpu_mask & -t->gpu_mask;
}
static void c_model(struct fw_snapshot *s, struct fw_plan *p)
{
	(void)p;
	snprintf(s->jobs[CS_SMALL].groups[0].gpu_model, FW_NAME_MAX, "B200");
}
static void c_two_racks(struct fw_snapshot *s, struct fw_plan *p)
{
	(void)s;
	struct fw_task_alloc *t = task(p, CS_GANG, FW_DECIDE_START, 1);
	t->node = task(p, CS_SMALL, FW_DECIDE_START, 0)->node; /* rack rb, 4 GPUs free */
	t->gpu_mask = 0xf0;
	s->jobs[CS_GANG].groups[0].gpus = 4;
	task(p, CS_GANG, FW_DECIDE_START, 0)->gpu_mask = 0x0f;
}
static void c_cpu(struct fw_snapshot *s, struct fw_plan *p)
{
	(void)p;
	s->jobs[CS_SMALL].groups[0].cpu_milli = 64000;
	s->jobs[CS_RUN].groups[0].cpu_milli = 64001; /* both on rack rb... */
	s->nodes[task(p, CS_SMALL, FW_DECIDE_START, 0)->node].cpu_milli = 64000 - 1;
}
static void c_limit(struct fw_snapshot *s, struct fw_plan *p)
{
	(void)p;
	s->queues[0].limit.v[FW_RES_GPU] = 20000; /* 8 running + 20 started */
}
static void c_model_limit(struct fw_snapshot *s, struct fw_plan *p)
{
	struct fw_model_limit m = { .queue = 0, .model = "H100", .gpus = 20000 }; /* 8 running + 20 started */
	(void)p;
	fw_snapshot_add_model_limit(s, &m);
}
static void c_started_twice(struct fw_snapshot *s, struct fw_plan *p)
{
	(void)s;
	struct fw_decision *g = decision(p, CS_GANG, FW_DECIDE_START);
	g->job = CS_SMALL;
	g->alloc_count = 1;
	p->allocs[g->alloc_first].gpu_mask = 0x0f;
}
static void c_start_running(struct fw_snapshot *s, struct fw_plan *p)
{
	(void)s;
	struct fw_decision *d = decision(p, CS_SMALL, FW_DECIDE_START);
	d->job = CS_RUN;
	p->allocs[d->alloc_first].gpu_mask = 0xff;
	s->jobs[CS_RUN].groups[0].gpus = 8;
}
static void c_evict_pending(struct fw_snapshot *s, struct fw_plan *p)
{
	(void)s;
	decision(p, CS_SMALL, FW_DECIDE_START)->kind = FW_DECIDE_EVICT;
}
static void c_evict_protected(struct fw_snapshot *s, struct fw_plan *p)
{
	struct fw_decision *d = decision(p, CS_SMALL, FW_DECIDE_START);
	d->kind = FW_DECIDE_EVICT;
	d->job = CS_RUN;
	s->jobs[CS_RUN].preemptible = false;
}
static void c_evict_for_nothing(struct fw_snapshot *s, struct fw_plan *p)
{
	(void)s;
	struct fw_decision *d = decision(p, CS_GANG, FW_DECIDE_START);
	d->kind = FW_DECIDE_EVICT; /* ... followed by small's START, on b0 */
	d->job = CS_RUN;
	d->a = CS_SMALL;
	s->jobs[CS_SMALL].groups[0].gpus = 4;
}
static void c_pending_started(struct fw_snapshot *s, struct fw_plan *p)
{
	(void)s;
	pending_of(p, CS_LATE)->job = CS_SMALL;
}
static void c_pending_missing(struct fw_snapshot *s, struct fw_plan *p)
{
	(void)s;
	p->npending--;
}
static void c_pending_no_reason(struct fw_snapshot *s, struct fw_plan *p)
{
	(void)s;
	pending_of(p, CS_LATE)->reason = FW_REASON_NONE;
}
static void c_pending_order(struct fw_snapshot *s, struct fw_plan *p)
{
	(void)s;
	struct fw_pending t = p->pending[0];
	p->pending[0] = p->pending[1];
	p->pending[1] = t;
}
static void c_pending_ahead(struct fw_snapshot *s, struct fw_plan *p)
{
	(void)s;
	pending_of(p, CS_LATE)->ahead = -1;
}
static void c_estimate_past(struct fw_snapshot *s, struct fw_plan *p)
{
	pending_of(p, CS_LATE)->expected_start = s->now - 1;
}
static void c_estimate_and_unknown(struct fw_snapshot *s, struct fw_plan *p)
{
	(void)s;
	pending_of(p, CS_LATE)->unknown_why = FW_REASON_NEVER_FITS;
}
static void c_reserved_unknown(struct fw_snapshot *s, struct fw_plan *p)
{
	(void)s;
	struct fw_pending *r = pending_of(p, CS_BIG);
	r->expected_start = FW_TIME_UNKNOWN;
	r->unknown_why = FW_REASON_NEVER_FITS;
}
static void c_reserved_elsewhen(struct fw_snapshot *s, struct fw_plan *p)
{
	(void)s;
	pending_of(p, CS_BIG)->expected_start += 60;
}
static void c_reservation_past(struct fw_snapshot *s, struct fw_plan *p)
{
	decision(p, CS_BIG, FW_DECIDE_RESERVE)->at = s->now - 1;
}
static void c_reservation_partial(struct fw_snapshot *s, struct fw_plan *p)
{
	(void)s;
	decision(p, CS_BIG, FW_DECIDE_RESERVE)->alloc_count = 3;
}
static void c_reservation_delayed(struct fw_snapshot *s, struct fw_plan *p)
{
	(void)p;
	s->jobs[CS_SMALL].expected_runtime = 5000; /* it backfilled past big's time */
}
/* The same three under utc_times (the daemon's clock, Slurm's, a dated
 * plan --config): the checker writes UTC dates, never "t=". */
static void c_estimate_past_utc(struct fw_snapshot *s, struct fw_plan *p)
{
	s->config.utc_times = true;
	c_estimate_past(s, p);
}
static void c_reserved_elsewhen_utc(struct fw_snapshot *s, struct fw_plan *p)
{
	s->config.utc_times = true;
	c_reserved_elsewhen(s, p);
}
static void c_reservation_delayed_utc(struct fw_snapshot *s, struct fw_plan *p)
{
	s->config.utc_times = true;
	c_reservation_delayed(s, p);
}
static void c_reservation_cpu(struct fw_snapshot *s, struct fw_plan *p)
{
	(void)p;
	s->jobs[CS_BIG].groups[0].cpu_milli = 128001;
}
static void c_reservation_started(struct fw_snapshot *s, struct fw_plan *p)
{
	(void)s;
	struct fw_decision *r = decision(p, CS_BIG, FW_DECIDE_RESERVE);
	r->job = CS_GANG; /* 2 tasks of 8 GPUs, on a0 and a1, free again at t=1000 */
	r->alloc_count = 2;
}
static void c_reservations_overlap(struct fw_snapshot *s, struct fw_plan *p)
{
	(void)s;
	/* late's reservation follows big's on a node big holds: pull it
	 * inside big's window */
	decision(p, CS_LATE, FW_DECIDE_RESERVE)->at = decision(p, CS_BIG, FW_DECIDE_RESERVE)->at;
}
static void c_reservation_oversized(struct fw_snapshot *s, struct fw_plan *p)
{
	(void)s;
	decision(p, CS_BIG, FW_DECIDE_RESERVE)->job = CS_GANG;
}
static void c_reservation_two_racks(struct fw_snapshot *s, struct fw_plan *p)
{
	(void)p;
	s->jobs[CS_BIG].required_level = 0;
}

static void c_bad_node(struct fw_snapshot *s, struct fw_plan *p)
{
	task(p, CS_SMALL, FW_DECIDE_START, 0)->node = s->nnodes;
}
static void c_bad_group(struct fw_snapshot *s, struct fw_plan *p)
{
	(void)s;
	task(p, CS_SMALL, FW_DECIDE_START, 0)->group = 1; /* small has one group */
}
static void c_gpu_beyond(struct fw_snapshot *s, struct fw_plan *p)
{
	struct fw_task_alloc *t = task(p, CS_SMALL, FW_DECIDE_START, 0);
	s->nodes[t->node].gpu_count = 6; /* small holds 4 of b0's upper GPUs */
	t->gpu_mask = 0xf0;
}
static void c_group_overfull(struct fw_snapshot *s, struct fw_plan *p)
{
	(void)p;
	struct fw_job *g = &s->jobs[CS_GANG]; /* two groups of one task; both tasks say group 0 */
	g->groups[0].count = 1;
	g->groups[1] = g->groups[0];
	g->ngroups = 2;
}
static void c_evicted_twice(struct fw_snapshot *s, struct fw_plan *p)
{
	(void)s;
	struct fw_decision *d = decision(p, CS_GANG, FW_DECIDE_START), *e = decision(p, CS_SMALL, FW_DECIDE_START);
	d->kind = FW_DECIDE_EVICT;
	d->job = CS_RUN;
	d->reason = FW_REASON_RECLAIMED;
	*e = *d; /* the same eviction again, in small's place */
}


/* Job j as one group of 2 tasks x 4 GPUs, each on a node of its own
 * (one_per_node: Slurm's multi-node jobs, a task is a node) or not. */
static void one_per_node(struct fw_snapshot *s, int j, bool on)
{
	s->jobs[j].groups[0].count = 2;
	s->jobs[j].groups[0].gpus = 4;
	s->jobs[j].groups[0].one_per_node = on;
}

/* Job j as two groups, 1 task x 2 GPUs and 1 task x 4 GPUs, each one a
 * node (a Slurm heterogeneous job of two 1-node components), apart or
 * not. */
static void two_groups(struct fw_snapshot *s, int j, bool apart)
{
	struct fw_job *job = &s->jobs[j];

	job->ngroups = 2;
	job->groups[0].count = 1;
	job->groups[0].gpus = 2;
	job->groups[1] = job->groups[0];
	job->groups[1].gpus = 4;
	for (int g = 0; g < 2; g++) {
		job->groups[g].one_per_node = true;
		job->groups[g].apart = apart;
	}
}

/* A rule that keeps a job's two tasks on two nodes (shape(s, j, true);
 * shape(s, j, false) is the same job without it): the tasks would
 * bin-pack onto one 8-GPU node, as they do without the rule; with it
 * they get a node each, in a start, in a reservation and in an
 * estimate, and a job that fits only on one node waits. */
static void keeps_two_nodes(void (*shape)(struct fw_snapshot *, int, bool))
{
	struct fw_snapshot *s = two_racks();
	int packed = tb_job(s, "packed", 0, 1, 1, 1000, 1);
	int apart = tb_job(s, "apart", 0, 1, 1, 1000, 2);
	shape(s, packed, false);
	shape(s, apart, true);
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(node_of(p, packed, 0), node_of(p, packed, 1));
	ASSERT(node_of(p, apart, 0) >= 0 && node_of(p, apart, 1) >= 0);
	ASSERT(node_of(p, apart, 0) != node_of(p, apart, 1));
	fw_snapshot_free(s);

	/* three nodes full until t=1000, b1 free: "packed" fits b1 alone,
	 * "apart" must wait for a second node, and is reserved on two */
	s = two_racks();
	int r = tb_job(s, "full", 0, 3, 8, 1000, 0);
	int n3[] = { 0, 1, 2 };
	s->jobs[r].expected_runtime = 1000;
	tb_run(s, r, 3, n3, 0xff);
	apart = tb_job(s, "apart", 0, 1, 1, 1000, 1);
	shape(s, apart, true);
	s->jobs[apart].expected_runtime = 100;
	/* the same shape but for the rule, behind it: the memo of failed
	 * shapes must not take it for apart's (it backfills on b1) */
	packed = tb_job(s, "packed", 0, 1, 1, 1000, 2);
	shape(s, packed, false);
	s->jobs[packed].expected_runtime = 100;
	p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT(decision(p, apart, FW_DECIDE_START) == NULL);
	ASSERT(decision(p, packed, FW_DECIDE_START) != NULL);
	ASSERT_EQ(node_of(p, packed, 0), 3);
	ASSERT_EQ(node_of(p, packed, 1), 3);
	const struct fw_decision *rv = decision(p, apart, FW_DECIDE_RESERVE);
	ASSERT(rv != NULL);
	ASSERT_EQ(rv->alloc_count, 2);
	ASSERT(p->allocs[rv->alloc_first].node != p->allocs[rv->alloc_first + 1].node);
	ASSERT_EQ(pending_of(p, apart)->expected_start, 1000);
	fw_snapshot_free(s);
}

TEST(one_per_node_tasks_each_get_a_node)
{
	keeps_two_nodes(one_per_node);
}

/* apart: Slurm never runs two components of a heterogeneous job on one
 * node (seen in the lab). */
TEST(apart_groups_never_share_a_node)
{
	keeps_two_nodes(two_groups);
}

/* ---- node filters (snapshot.h) ---- */

/* A filter of every node changes no placement.  One pending job at a
 * time (the others over a queue limit of 0), on the state of a random
 * snapshot: with the filter (shared or its own) it walks its filter's
 * slots (filter.c), without it the domain index; both try the same
 * domains, fullest first, ties in topology order on a fresh state, with
 * the same candidates, so it starts in both or neither, on the same
 * GPUs.  (With many starts in one cycle, the index orders ties by when
 * a domain last changed, the slots by topology: plans may differ then.) */
static struct fw_snapshot *one_pending(uint32_t seed, int keep, bool filtered, bool shared)
{
	struct fw_snapshot *s = random_snapshot(seed);
	int blocked = tb_queue(s, "blocked", 0, 0, 0, 1);
	int32_t all[24], first = -1;

	for (int n = 0; n < s->nnodes; n++)
		all[n] = s->nnodes - 1 - n; /* any order */
	for (int j = 0; j < s->njobs; j++) {
		if (s->jobs[j].state != FW_JOB_PENDING)
			continue;
		if (j != keep)
			s->jobs[j].queue = blocked;
		if (!filtered)
			continue;
		if (shared && first >= 0)
			fw_snapshot_restrict_job_as(s, j, first);
		else
			first = fw_snapshot_restrict_job(s, j, all, s->nnodes);
	}
	return s;
}

TEST(a_filter_of_every_node_places_as_none)
{
	int starts = 0, waits = 0;
	for (uint32_t seed = 1; seed <= 12; seed++) {
		for (int j = 0; j < 120; j++) {
			struct fw_snapshot *s = one_pending(seed, j, false, false);
			struct fw_plan *p = run(s, "kai");
			ASSERT(p != NULL);
			const struct fw_decision *d = start_of(p, j);
			int32_t nt = d ? d->alloc_count : 0;
			struct fw_task_alloc t[64];
			ASSERT(nt <= 64);
			if (d)
				memcpy(t, p->allocs + d->alloc_first, (size_t)nt * sizeof *t);
			starts += d != NULL;
			waits += d == NULL;
			fw_snapshot_free(s);
			for (int shared = 0; shared <= 1; shared++) {
				s = one_pending(seed, j, true, shared);
				p = run(s, "kai");
				ASSERT(p != NULL);
				const struct fw_decision *e = start_of(p, j);
				ASSERT_EQ(e != NULL, d != NULL);
				if (e) {
					ASSERT_EQ(e->alloc_count, nt);
					ASSERT_OK(memcmp(p->allocs + e->alloc_first, t, (size_t)nt * sizeof *t));
				}
				fw_snapshot_free(s);
			}
		}
	}
	ASSERT(starts > 500);
	ASSERT(waits > 50);
}

/* Two racks at t=100, b0 running r (3 GPUs, expected to end at 1000). */
static struct fw_snapshot *b0_busy(void)
{
	struct fw_snapshot *s = two_racks();
	int b0[] = { 2 };
	int r = tb_job(s, "r", 0, 1, 3, 1000, 0);

	tb_run(s, r, 1, b0, 0x7);
	s->jobs[r].expected_runtime = 1000;
	s->now = 100;
	return s;
}

/* Every policy's plan of s (a snapshot with node filters): checked
 * (run()), deterministic (a second run, in an arena of its own, gives the
 * same decisions, tasks and reasons), and no start or reservation puts a
 * filtered job's task where its filter forbids (fw_snapshot_job_may_use,
 * beside the checker's own scan).  Adds the filtered jobs' starts and
 * reservations to *starts and *reserved. */
static void plans_keep_filters(const struct fw_snapshot *s, int *starts, int *reserved)
{
	const char *pols[] = { "fairway", "slurm", "fifo", "kai" };

	for (int k = 0; k < 4; k++) {
		struct fw_plan *p = run(s, pols[k]), *q = NULL;
		struct fw_arena b;
		const int32_t *v;
		ASSERT(p != NULL);
		for (int i = 0; i < p->ndecisions; i++) {
			const struct fw_decision *d = &p->decisions[i];
			bool filtered = fw_snapshot_job_nodes(s, d->job, &v) >= 0;
			bool placed = d->kind == FW_DECIDE_START || d->kind == FW_DECIDE_RESERVE;
			*starts += filtered && d->kind == FW_DECIDE_START;
			*reserved += filtered && d->kind == FW_DECIDE_RESERVE;
			for (int32_t t = 0; filtered && placed && t < d->alloc_count; t++)
				ASSERT(fw_snapshot_job_may_use(s, d->job, p->allocs[d->alloc_first + t].node));
		}
		fw_arena_init(&b, 4096);
		ASSERT_OK(fw_cycle_run(s, fw_policy_find(pols[k]), &b, &q));
		ASSERT_EQ(p->ndecisions, q->ndecisions);
		ASSERT_OK(memcmp(p->allocs, q->allocs, (size_t)p->nallocs * sizeof *p->allocs));
		ASSERT_OK(memcmp(p->pending, q->pending, (size_t)p->npending * sizeof *p->pending));
		fw_arena_release(&b);
	}
}

/* Random snapshots where a third of the pending jobs may use a part of
 * the nodes (a rack's worth, every other node, or a random half; two
 * filters shared): every policy's plan keeps every invariant (the
 * checker: no task off its filter), is deterministic, and the filtered
 * jobs do start and get reservations. */
TEST(random_filters_keep_every_invariant)
{
	int fstarts = 0, freserved = 0;
	for (uint32_t seed = 1; seed <= 40; seed++) {
		struct fw_snapshot *s = random_snapshot(seed);
		uint32_t x = seed * 747796405u + 7;
		int32_t racks[12], odd[12], half[24], nh = 0, erack = -1, eodd = -1;
		for (int n = 0; n < 12; n++) {
			racks[n] = 4 * (int32_t)(seed % 3) + n % 4 + (n / 4) * 12; /* one rack in each block */
			odd[n] = 2 * n + 1;
		}
		for (int n = 0; n < 24; n++)
			if (tb_xs32(&x) % 2)
				half[nh++] = n;
		if (seed % 4 == 0) { /* suspect and lemon nodes: the tainted rules too */
			s->nodes[5].health = FW_HEALTH_SUSPECT;
			s->nodes[9].lemon = true;
		}
		for (int j = 0; j < s->njobs; j++) {
			if (s->jobs[j].state != FW_JOB_PENDING || tb_xs32(&x) % 3)
				continue;
			switch (tb_xs32(&x) % 3) {
			case 0:
				ASSERT((erack = erack < 0 ? fw_snapshot_restrict_job(s, j, racks, 8)
							  : fw_snapshot_restrict_job_as(s, j, erack)) >= 0);
				break;
			case 1:
				ASSERT((eodd = eodd < 0 ? fw_snapshot_restrict_job(s, j, odd, 12)
							: fw_snapshot_restrict_job_as(s, j, eodd)) >= 0);
				break;
			default:
				if (nh > 0)
					ASSERT(fw_snapshot_restrict_job(s, j, half, nh) >= 0);
			}
		}
		plans_keep_filters(s, &fstarts, &freserved);
		fw_snapshot_free(s);
	}
	ASSERT(fstarts > 100);
	ASSERT(freserved > 10);
}

/* Except filters (a few nodes a job may not use; snapshot.h): the same
 * random snapshots with a third of the pending jobs each leaving out one
 * to three random nodes (some lists shared): every policy's plan keeps
 * every invariant (the checker: no task on a node left out), is
 * deterministic, no start or reservation uses a node its job left out
 * (asked through fw_snapshot_job_may_use too), and such jobs do start
 * and do get reservations. */
TEST(except_filters_keep_every_invariant)
{
	int estarts = 0, ereserved = 0;
	for (uint32_t seed = 1; seed <= 40; seed++) {
		struct fw_snapshot *s = random_snapshot(seed);
		uint32_t x = seed * 2654435761u + 11;
		int32_t shared = -1;
		for (int j = 0; j < s->njobs; j++) {
			if (s->jobs[j].state != FW_JOB_PENDING || tb_xs32(&x) % 3)
				continue;
			int32_t nodes[3], n = 1 + (int32_t)(tb_xs32(&x) % 3);
			for (int k = 0; k < n; k++)
				nodes[k] = (int32_t)(tb_xs32(&x) % (uint32_t)s->nnodes);
			if (shared >= 0 && tb_xs32(&x) % 2)
				ASSERT(fw_snapshot_restrict_job_as(s, j, shared) >= 0);
			else
				ASSERT((shared = fw_snapshot_restrict_job_except(s, j, nodes, n)) >= 0);
		}
		plans_keep_filters(s, &estarts, &ereserved);
		fw_snapshot_free(s);
	}
	ASSERT(estarts > 100);
	ASSERT(ereserved > 10);
}

/* An except filter in the small: "free" (1 GPU) packs onto b0, where r
 * runs; "not-b0", the same job leaving b0 out, goes elsewhere; "only-b0"
 * (8 GPUs) leaves out every node but b0, which r holds until 1000: it
 * waits there with reason node_filter (1 node, 4 GPUs free on it once
 * "free" took one), gets its reservation on b0 at 1000 and, without
 * reservations, is expected then all the same (the estimate walk retries
 * an except shape at every step); "no-a" (a 2 x 8 gang in one rack)
 * leaves out rack ra, so it needs b0 and b1 whole: it waits, may use 2
 * nodes. */
TEST(an_except_filter_keeps_a_job_off_its_nodes)
{
	struct fw_snapshot *s = b0_busy();
	int b0[] = { 2 }, not_b0[] = { 0, 1, 3 }, ra[] = { 1, 0 };
	int fr = tb_job(s, "free", 0, 1, 1, 1000, 10);
	int nb = tb_job(s, "not-b0", 0, 1, 1, 1000, 11);
	int ob = tb_job(s, "only-b0", 0, 1, 8, 1000, 12);
	int na = tb_job(s, "no-a", 0, 2, 8, 1000, 13);
	s->jobs[na].required_level = 0;
	for (int j = fr; j <= na; j++)
		s->jobs[j].expected_runtime = 100;
	ASSERT(fw_snapshot_restrict_job_except(s, nb, b0, 1) >= 0);
	ASSERT(fw_snapshot_restrict_job_except(s, ob, not_b0, 3) >= 0);
	ASSERT(fw_snapshot_restrict_job_except(s, na, ra, 2) >= 0);
	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT_EQ(node_of(p, fr, 0), 2);
	ASSERT(node_of(p, nb, 0) >= 0 && node_of(p, nb, 0) != 2);
	ASSERT(decision(p, ob, FW_DECIDE_START) == NULL);
	ASSERT(decision(p, na, FW_DECIDE_START) == NULL);
	const struct fw_decision *rv = decision(p, ob, FW_DECIDE_RESERVE);
	ASSERT(rv != NULL);
	ASSERT_EQ(rv->at, 1000);
	ASSERT_EQ(p->allocs[rv->alloc_first].node, 2);
	ASSERT_EQ(pending_of(p, ob)->expected_start, 1000);
	s->config.reserve_depth = -1; /* no reservation: the reason and the estimate walk */
	p = run(s, "fairway");
	ASSERT(p != NULL);
	const struct fw_pending *w = pending_of(p, ob);
	ASSERT_EQ(w->reason, FW_REASON_NODE_FILTER);
	ASSERT_EQ(w->a, 1);     /* it may start on 1 node */
	ASSERT_EQ(w->b, 8 - 3 - 1); /* b0's free GPUs, after free's */
	ASSERT_EQ(w->expected_start, 1000);
	ASSERT_EQ(pending_of(p, na)->reason, FW_REASON_NODE_FILTER);
	ASSERT_EQ(pending_of(p, na)->a, 2);
	fw_snapshot_free(s);
}

/* Why an except job waits: a0, a1 and b0 are full, b1 free.  "off-b1"
 * (8 GPUs, tried first) leaves out the one node with room: node_filter,
 * 3 nodes it may use, no GPU free there.  "off-a0" leaves out a full
 * node, which changes nothing: it starts, on b1.  "off-a1" then finds
 * the cluster full; the node it leaves out has no room either, so its
 * reason is not node_filter. */
TEST(an_except_filter_is_the_reason_only_when_it_leaves_out_room)
{
	struct fw_snapshot *s = two_racks();
	const char *names[] = { "r0", "r1", "r2" };
	for (int n = 0; n < 3; n++) {
		int32_t at[] = { n };
		int r = tb_job(s, names[n], 0, 1, 8, 1000, 0);
		tb_run(s, r, 1, at, 0xff);
		s->jobs[r].expected_runtime = 1000;
	}
	s->now = 100;
	s->config.reserve_depth = -1;
	int32_t a0[] = { 0 }, a1[] = { 1 }, b1[] = { 3 };
	int ob = tb_job(s, "off-b1", 0, 1, 8, 1000, 10), oa = tb_job(s, "off-a0", 0, 1, 8, 1000, 11);
	int oa1 = tb_job(s, "off-a1", 0, 1, 8, 1000, 12);
	ASSERT(fw_snapshot_restrict_job_except(s, ob, b1, 1) >= 0);
	ASSERT(fw_snapshot_restrict_job_except(s, oa, a0, 1) >= 0);
	ASSERT(fw_snapshot_restrict_job_except(s, oa1, a1, 1) >= 0);
	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT_EQ(pending_of(p, ob)->reason, FW_REASON_NODE_FILTER);
	ASSERT_EQ(pending_of(p, ob)->a, 3);
	ASSERT_EQ(pending_of(p, ob)->b, 0);
	ASSERT_EQ(node_of(p, oa, 0), 3);
	ASSERT(pending_of(p, oa1)->reason != FW_REASON_NODE_FILTER);
	fw_snapshot_free(s);
}

/* A job with a node filter starts only on its nodes, is reserved only on
 * them, and does not make the failed-shape memo refuse a job of the same
 * shape without one.  b0 runs r (3 GPUs, until t=1000): "free" packs onto
 * it, "kept" (a0, a1 only) does not; "pinned" (8 GPUs, b0 only) waits for
 * b0, reserved at 1000; "any8", its shape but unfiltered, starts now. */
TEST(node_filter_keeps_a_job_on_its_nodes)
{
	struct fw_snapshot *s = b0_busy();
	int b0[] = { 2 }, ra[] = { 1, 0 };
	int fr = tb_job(s, "free", 0, 1, 1, 1000, 10);
	int kept = tb_job(s, "kept", 0, 1, 1, 1000, 11);
	int pinned = tb_job(s, "pinned", 0, 1, 8, 1000, 12);
	int any8 = tb_job(s, "any8", 0, 1, 8, 1000, 13);
	/* a second reservation (its clone must not touch the cycle's own
	 * filter sums), then a short job that may use b0 only: it backfills */
	int gang = tb_job(s, "gang", 0, 4, 8, 1000, 14);
	int late = tb_job(s, "late", 0, 1, 2, 1000, 15);
	for (int j = fr; j <= late; j++)
		s->jobs[j].expected_runtime = 100;
	ASSERT(fw_snapshot_restrict_job(s, kept, ra, 2) >= 0);
	ASSERT(fw_snapshot_restrict_job(s, pinned, b0, 1) >= 0);
	ASSERT(fw_snapshot_restrict_job(s, late, b0, 1) >= 0);
	const char *pols[] = { "fairway", "slurm", "fifo", "kai" };
	for (int k = 0; k < 4; k++) {
		struct fw_plan *p = run(s, pols[k]);
		ASSERT(p != NULL);
		ASSERT_EQ(node_of(p, fr, 0), 2);
		ASSERT(node_of(p, kept, 0) == 0 || node_of(p, kept, 0) == 1);
		ASSERT(decision(p, pinned, FW_DECIDE_START) == NULL);
		if (k == 0) { /* slurm's one reservation is the gang's (size counts) */
			const struct fw_decision *rv = decision(p, pinned, FW_DECIDE_RESERVE);
			ASSERT(rv != NULL);
			ASSERT_EQ(rv->at, 1000);
			ASSERT_EQ(p->allocs[rv->alloc_first].node, 2);
			ASSERT_EQ(pending_of(p, pinned)->expected_start, 1000);
		}
		if (k != 2) { /* fifo: the blocked "pinned" holds the line */
			ASSERT(decision(p, any8, FW_DECIDE_START) != NULL);
			ASSERT(decision(p, gang, FW_DECIDE_START) == NULL);
			ASSERT_EQ(node_of(p, late, 0), 2);
		}
		if (k < 2) /* the policies that reserve */
			ASSERT(decision(p, gang, FW_DECIDE_RESERVE) != NULL);
	}
	fw_snapshot_free(s);
}

/* The estimate walk retries a filtered gang only at a step that freed
 * room in one of its filter's domains (estimate.c, step_helps_filter).
 * The gang needs rack ra whole (its filter); b0 and b1 are free but not
 * its.  a0 frees at 100 (8 of the 16 it needs: no retry), a1 at 200 (the
 * rack's free GPUs now equal its need exactly): it is expected at 200. */
TEST(a_filtered_gang_is_estimated_when_its_rack_frees)
{
	struct fw_snapshot *s = two_racks();
	int a0[] = { 0 }, a1[] = { 1 }, ra[] = { 0, 1 };
	int x = tb_job(s, "x", 0, 1, 8, 1000, 0), y = tb_job(s, "y", 0, 1, 8, 1000, 0);
	tb_run(s, x, 1, a0, 0xff);
	tb_run(s, y, 1, a1, 0xff);
	s->jobs[x].expected_runtime = 100;
	s->jobs[y].expected_runtime = 200;
	int g = tb_job(s, "g", 0, 2, 8, 1000, 5);
	s->jobs[g].required_level = 0;
	s->jobs[g].expected_runtime = 50;
	ASSERT(fw_snapshot_restrict_job(s, g, ra, 2) >= 0);
	s->now = 10;
	s->config.reserve_depth = -1; /* no reservation: the estimate walk says when */
	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT(decision(p, g, FW_DECIDE_START) == NULL);
	ASSERT(decision(p, g, FW_DECIDE_RESERVE) == NULL);
	ASSERT_EQ(pending_of(p, g)->reason, FW_REASON_NODE_FILTER);
	ASSERT_EQ(pending_of(p, g)->expected_start, 200);
	fw_snapshot_free(s);
}

/* Two filters that start at the same reference but differ in length are
 * two filters: "b" may use a0 only (full), "a" a0 or a1; the same shape
 * otherwise, b tried first.  The failed-shape memo must not answer a
 * from b's failure: a starts on a1. */
TEST(filters_sharing_a_start_are_told_apart)
{
	struct fw_snapshot *s = two_racks();
	int a0[] = { 0 }, both[] = { 0, 1 };
	int r = tb_job(s, "full", 0, 1, 8, 1000, 0);
	tb_run(s, r, 1, a0, 0xff);
	int b = tb_job(s, "b", 0, 1, 2, 1000, 1);
	int a = tb_job(s, "a", 0, 1, 2, 1000, 2);
	ASSERT(fw_snapshot_restrict_job(s, b, both, 2) == 0);
	ASSERT(fw_snapshot_restrict_job_as(s, a, 0) == 1);
	s->job_nodes[0].count = 1; /* b: the first reference only */
	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT(decision(p, b, FW_DECIDE_START) == NULL);
	ASSERT_EQ(node_of(p, a, 0), 1);
	fw_snapshot_free(s);
}

/* A filter that only a cordoned node meets: the job never starts (not
 * elsewhere either), its estimate is unknown and says it waits for that
 * node (nodes_out: a cordon can be lifted).  One its nodes could never
 * hold, even so, never fits. */
TEST(node_filter_on_cordoned_nodes_waits_for_them)
{
	struct fw_snapshot *s = two_racks();
	int a1[] = { 1 };
	s->nodes[1].schedulable = false;
	int j = tb_job(s, "stuck", 0, 1, 2, 1000, 10);
	s->jobs[j].expected_runtime = 100;
	ASSERT(fw_snapshot_restrict_job(s, j, a1, 1) >= 0);
	int other = tb_job(s, "other", 0, 1, 2, 1000, 11);
	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT(decision(p, j, FW_DECIDE_START) == NULL);
	ASSERT(decision(p, j, FW_DECIDE_RESERVE) == NULL);
	ASSERT(decision(p, other, FW_DECIDE_START) != NULL);
	ASSERT_EQ(pending_of(p, j)->reason, FW_REASON_NODE_FILTER);
	ASSERT_EQ(pending_of(p, j)->a, 1); /* one node it may use */
	ASSERT_EQ(pending_of(p, j)->b, 0); /* with no free GPUs it may use */
	ASSERT_EQ(pending_of(p, j)->expected_start, FW_TIME_UNKNOWN);
	ASSERT_EQ(pending_of(p, j)->unknown_why, FW_REASON_NODES_OUT);
	ASSERT_EQ(pending_of(p, j)->why_a, 1); /* the cordoned node */
	fw_snapshot_free(s);

	/* its one node has 4 good GPUs and it asks 8; a gang of 2 x 8 GPUs on
	 * one 8-GPU node (each task fits, the gang never does): never, and
	 * the estimate says the most it could hold where it may go */
	static const struct { int bad, tasks, need, cap; } nv[] = { { 0xf0, 1, 8, 4 }, { 0, 2, 16, 8 } };
	for (int i = 0; i < 2; i++) {
		s = two_racks();
		s->nodes[1].bad_gpu_mask = (uint32_t)nv[i].bad;
		j = tb_job(s, "never", 0, nv[i].tasks, 8, 1000, 10);
		ASSERT(fw_snapshot_restrict_job(s, j, a1, 1) >= 0);
		p = run(s, "fairway");
		ASSERT(p != NULL);
		ASSERT(decision(p, j, FW_DECIDE_START) == NULL);
		ASSERT_EQ(pending_of(p, j)->unknown_why, FW_REASON_NEVER_FITS);
		ASSERT_EQ(pending_of(p, j)->why_a, nv[i].need);
		ASSERT_EQ(pending_of(p, j)->why_b, nv[i].cap);
		fw_snapshot_free(s);
	}
}


/* ---- group filters (snapshot.h "Group filters") ---- */

/* A job of two one-task groups, apart (a Slurm heterogeneous job of two
 * components) of g0 and g1 GPUs, expected to run 100 s. */
static int het2(struct fw_snapshot *s, const char *name, int g0, int g1, fw_time submit)
{
	int j = tb_job(s, name, 0, 1, g0, 1000, submit);
	struct fw_job *x = &s->jobs[j];

	x->groups[1] = x->groups[0];
	x->groups[1].gpus = g1;
	x->groups[0].apart = x->groups[1].apart = true;
	x->ngroups = 2;
	x->expected_runtime = 100;
	return j;
}

/* Restrict group 0 of het job j to the n0 nodes of l0, group 1 to l1's. */
static void groups_on(struct fw_snapshot *s, int j, const int32_t *l0, int32_t n0, const int32_t *l1, int32_t n1)
{
	ASSERT(fw_snapshot_restrict_group(s, j, 0, l0, n0, 0) >= 0);
	ASSERT(fw_snapshot_restrict_group(s, j, 1, l1, n1, 0) >= 0);
}

/* The node of group g's first task in decision d, -1 without one. */
static int32_t group_node(const struct fw_plan *p, const struct fw_decision *d, int g)
{
	for (int32_t k = 0; d && k < d->alloc_count; k++)
		if (p->allocs[d->alloc_first + k].group == g)
			return p->allocs[d->alloc_first + k].node;
	return -1;
}

/* On the empty two racks a het job of 2 + 4 GPUs packs onto a0 and a1;
 * its group 0 restricted to b1 and its group 1 to every node but a1, b0
 * and b1, each group lands on its one node, under every policy. */
TEST(group_filters_put_each_group_on_its_nodes)
{
	static const char *const pols[] = { "fairway", "slurm", "fifo", "kai" };
	int32_t b1[] = { 3 }, not_a0[] = { 3, 2, 1 };

	for (int filtered = 0; filtered <= 1; filtered++) {
		struct fw_snapshot *s = two_racks();
		int h = het2(s, "het", 2, 4, 10);
		if (filtered) {
			ASSERT_EQ(fw_snapshot_restrict_group(s, h, 0, b1, 1, 0), 0);
			ASSERT_EQ(fw_snapshot_restrict_group(s, h, 1, not_a0, 3, 1), 1);
		}
		for (int k = 0; k < 4; k++) {
			struct fw_plan *p = run(s, pols[k]);
			ASSERT(p != NULL);
			const struct fw_decision *d = decision(p, h, FW_DECIDE_START);
			ASSERT(d != NULL);
			if (filtered) {
				ASSERT_EQ(group_node(p, d, 0), 3);
				ASSERT_EQ(group_node(p, d, 1), 0);
			} else { /* where they go without: the filters moved them */
				ASSERT(group_node(p, d, 0) != 3 || group_node(p, d, 1) != 0);
			}
		}
		fw_snapshot_free(s);
	}
}

/* b0 runs r (3 GPUs) until 1000.  A het job whose 8-GPU group may use b0
 * only waits, and fairway reserves b0 for that group at 1000 (the other
 * group anywhere else), with the estimate to match (without reservations
 * its reason is node_filter, by that group's nodes); a second het job whose
 * two apart groups may both use a0 only never starts, nor is reserved;
 * nor does one whose two 5-GPU groups may both use b0 only (5 GPUs free
 * there: not a node_filter reason). */
TEST(a_group_filter_waits_for_its_node)
{
	struct fw_snapshot *s = b0_busy();
	int32_t b0[] = { 2 }, a0[] = { 0 };
	int h = het2(s, "het", 8, 1, 10), g = het2(s, "both-a0", 1, 1, 11), y = het2(s, "both-b0", 5, 5, 12);

	ASSERT(fw_snapshot_restrict_group(s, h, 0, b0, 1, 0) >= 0);
	groups_on(s, g, a0, 1, a0, 1);
	groups_on(s, y, b0, 1, b0, 1);
	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT(decision(p, h, FW_DECIDE_START) == NULL);
	const struct fw_decision *rv = decision(p, h, FW_DECIDE_RESERVE);
	ASSERT(rv != NULL);
	ASSERT_EQ(rv->at, 1000);
	ASSERT_EQ(group_node(p, rv, 0), 2);
	ASSERT(group_node(p, rv, 1) >= 0 && group_node(p, rv, 1) != 2);
	ASSERT_EQ(pending_of(p, h)->expected_start, 1000);
	ASSERT(decision(p, g, FW_DECIDE_START) == NULL);
	ASSERT(decision(p, g, FW_DECIDE_RESERVE) == NULL);
	ASSERT_EQ(pending_of(p, g)->expected_start, FW_TIME_UNKNOWN);
	/* without reservations (kai) "het" waits with its group's reason: 1
	 * node, 5 GPUs free there (a job filter's words, the group's counts) */
	p = run(s, "kai");
	ASSERT(p != NULL);
	ASSERT_EQ(pending_of(p, h)->reason, FW_REASON_NODE_FILTER);
	ASSERT_EQ(pending_of(p, h)->a, 1);
	ASSERT_EQ(pending_of(p, h)->b, 5);
	ASSERT(pending_of(p, y)->reason != FW_REASON_NODE_FILTER); /* b0 has its 5 GPUs: apart is what stops it */
	fw_snapshot_free(s);

	/* a group of 8 GPUs whose filter allows only a 4-GPU node never fits,
	 * and the reason says so of that group (8 GPUs, at most 4), though
	 * its job's other group may use an 8-GPU node */
	s = fw_snapshot_new();
	tb_node(s, "small", 4, NULL, NULL, NULL, NULL);
	tb_node(s, "large", 8, NULL, NULL, NULL, NULL);
	tb_queue(s, "q", -1, 12, -1, 1);
	s->now = 100;
	int32_t sm[] = { 0 };
	h = het2(s, "het", 8, 1, 10);
	ASSERT(fw_snapshot_restrict_group(s, h, 0, sm, 1, 0) >= 0);
	p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT(decision(p, h, FW_DECIDE_START) == NULL);
	ASSERT_EQ(pending_of(p, h)->expected_start, FW_TIME_UNKNOWN);
	ASSERT_EQ(pending_of(p, h)->unknown_why, FW_REASON_NEVER_FITS);
	ASSERT_EQ(pending_of(p, h)->why_a, 8);
	ASSERT_EQ(pending_of(p, h)->why_b, 4);
	fw_snapshot_free(s);
}

/* Jobs alike but for their group filters are told apart: "stuck" (1 +
 * 1 GPUs, apart, both groups on a0 only) never fits; "free", the same
 * shape with its groups on a1 and b1, starts there all the same (a memo
 * that took them for one shape would skip it), under every policy.  And
 * the tainted-first search's miss memo (a0 and a1 lemons): "far" (groups
 * on b0 or b1 only) finds no lemon, "near" (group 0 on a0 or b0, group 1
 * on a1 or b1; lists of the same lengths) still takes the lemons first,
 * though b0 is the busier node. */
TEST(jobs_alike_but_for_their_group_filters_are_told_apart)
{
	static const char *const pols[] = { "fairway", "slurm", "fifo", "kai" };
	struct fw_snapshot *s = two_racks();
	int32_t a0[] = { 0 }, a1[] = { 1 }, b1[] = { 3 };
	int stuck = het2(s, "stuck", 1, 1, 10), fr = het2(s, "free", 1, 1, 11);

	groups_on(s, stuck, a0, 1, a0, 1);
	groups_on(s, fr, a1, 1, b1, 1);
	for (int k = 0; k < 4; k++) {
		struct fw_plan *p = run(s, pols[k]);
		ASSERT(p != NULL);
		ASSERT(decision(p, stuck, FW_DECIDE_START) == NULL);
		if (k == 2)
			continue; /* fifo: "stuck" holds the line */
		const struct fw_decision *d = decision(p, fr, FW_DECIDE_START);
		ASSERT(d != NULL);
		ASSERT_EQ(group_node(p, d, 0), 1);
		ASSERT_EQ(group_node(p, d, 1), 3);
	}
	fw_snapshot_free(s);

	s = two_racks();
	int32_t bb[] = { 2, 3 }, ab0[] = { 0, 2 }, ab1[] = { 1, 3 }, b0[] = { 2 };
	int r = tb_job(s, "r", 0, 1, 2, 1000, 0);
	tb_run(s, r, 1, b0, 0x3);
	s->nodes[0].lemon = s->nodes[1].lemon = true;
	int far = het2(s, "far", 1, 1, 10), near = het2(s, "near", 1, 1, 11);
	groups_on(s, far, bb, 2, bb, 2);
	groups_on(s, near, ab0, 2, ab1, 2);
	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT(decision(p, far, FW_DECIDE_START) != NULL);
	ASSERT_EQ(group_node(p, decision(p, near, FW_DECIDE_START), 0), 0);
	fw_snapshot_free(s);
}

/* Users inside a queue (config user_fair_share): alice holds a0 and waits
 * with three more 8-GPU jobs, submitted first; bob and carol wait with
 * one each, zoe holds a1, and there is room for two.  By default alice's
 * two oldest start; with the setting bob's and carol's.  Priority still comes first (users take
 * turns inside each priority), kai orders alike, and fifo's line across
 * the queues is not reordered. */
TEST(users_take_turns_inside_a_queue_with_user_fair_share)
{
	struct fw_snapshot *s = two_racks();
	int n0[] = { 0 }, n1[] = { 1 }, r = tb_job(s, "running", 0, 1, 8, 1000, 0);
	int z = tb_job(s, "zoe-running", 0, 1, 8, 1000, 0);
	const char *who[] = { "alice", "alice", "alice", "alice", "bob", "carol" };
	int job[6];

	tb_run(s, r, 1, n0, 0xff);
	tb_run(s, z, 1, n1, 0xff);
	snprintf(s->jobs[z].user, sizeof s->jobs[z].user, "zoe");
	job[0] = r;
	for (int i = 1; i < 6; i++) {
		char nm[16];
		snprintf(nm, sizeof nm, "%s%d", who[i], i);
		job[i] = tb_job(s, nm, 0, 1, 8, 1000, 10 * i);
	}
	for (int i = 0; i < 6; i++)
		snprintf(s->jobs[job[i]].user, sizeof s->jobs[job[i]].user, "%s", who[i]);
	s->now = 100;
	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL);
	for (int i = 1; i < 6; i++) /* by age: alice's two oldest */
		ASSERT_EQ(start_of(p, job[i]) != NULL, i <= 2);
	s->config.user_fair_share = true;
	p = run(s, "fairway");
	ASSERT(p != NULL);
	for (int i = 1; i < 6; i++) /* bob and carol: they hold nothing, alice 8 GPUs */
		ASSERT_EQ(start_of(p, job[i]) != NULL, i >= 4);
	ASSERT_EQ(pending_of(p, job[1])->reason, FW_REASON_FAIRSHARE_ORDER);
	p = run(s, "kai");
	ASSERT(p != NULL);
	for (int i = 1; i < 6; i++)
		ASSERT_EQ(start_of(p, job[i]) != NULL, i >= 4);
	s->jobs[job[2]].priority = s->jobs[job[3]].priority = 5; /* priority first: alice's two */
	p = run(s, "fairway");
	ASSERT(p != NULL);
	for (int i = 1; i < 6; i++)
		ASSERT_EQ(start_of(p, job[i]) != NULL, i == 2 || i == 3);
	s->jobs[job[2]].priority = s->jobs[job[3]].priority = 0;
	p = run(s, "fifo"); /* one line across the queues: as it was */
	ASSERT(p != NULL);
	for (int i = 1; i < 6; i++)
		ASSERT_EQ(start_of(p, job[i]) != NULL, i <= 2);
	fw_snapshot_free(s);
}

/* Two users with like jobs alternate (the GPUs of each one's jobs ahead
 * count), and what one holds or waits for counts only in its own queue:
 * dana runs 16 GPUs in queue r, none in q, so in q she and erin alternate
 * from her oldest job on; in r the line stays in submit order, though
 * erin waits and frank runs in q. */
TEST(users_alternate_and_count_only_their_own_queue)
{
	struct fw_snapshot *s = two_racks();
	int n01[] = { 0, 1 }, other;
	tb_queue(s, "r", -1, 16, -1, 1);
	other = tb_job(s, "dana-r", 1, 2, 8, 1000, 0);
	snprintf(s->jobs[other].user, sizeof s->jobs[other].user, "dana");
	tb_run(s, other, 2, n01, 0xff);
	int d1 = tb_job(s, "d1", 0, 1, 4, 1000, 10), d2 = tb_job(s, "d2", 0, 1, 4, 1000, 11);
	int d3 = tb_job(s, "d3", 0, 1, 4, 1000, 12), e1 = tb_job(s, "e1", 0, 1, 4, 1000, 13);
	int e2 = tb_job(s, "e2", 0, 1, 4, 1000, 14), e3 = tb_job(s, "e3", 0, 1, 4, 1000, 15);
	int d[] = { d1, d2, d3 }, e[] = { e1, e2, e3 };
	for (int i = 0; i < 3; i++) {
		snprintf(s->jobs[d[i]].user, sizeof s->jobs[d[i]].user, "dana");
		snprintf(s->jobs[e[i]].user, sizeof s->jobs[e[i]].user, "erin");
	}
	/* in r (at its share, after q) erin, frank and gus wait in submit
	 * order: neither erin's waiting jobs nor frank's running one in q
	 * count there */
	int fq = tb_job(s, "frank-q", 0, 1, 4, 1000, 0), b0[] = { 2 };
	int er = tb_job(s, "erin-r", 1, 1, 4, 1000, 1), fr = tb_job(s, "frank-r", 1, 1, 4, 1000, 2);
	int gr = tb_job(s, "gus-r", 1, 1, 4, 1000, 3);
	snprintf(s->jobs[fq].user, sizeof s->jobs[fq].user, "frank");
	snprintf(s->jobs[fr].user, sizeof s->jobs[fr].user, "frank");
	snprintf(s->jobs[er].user, sizeof s->jobs[er].user, "erin");
	snprintf(s->jobs[gr].user, sizeof s->jobs[gr].user, "gus");
	tb_run(s, fq, 1, b0, 0xf);
	s->now = 100;
	s->config.user_fair_share = true;
	struct fw_plan *p = run(s, "fairway"); /* 12 GPUs free: three 4-GPU jobs */
	ASSERT(p != NULL);
	ASSERT(start_of(p, d1) && start_of(p, e1) && start_of(p, d2));
	ASSERT(!start_of(p, e2) && !start_of(p, d3) && !start_of(p, e3) && !start_of(p, er) && !start_of(p, fr));
	ASSERT_EQ(pending_of(p, er)->ahead, 0);
	ASSERT_EQ(pending_of(p, fr)->ahead, 1);
	ASSERT_EQ(pending_of(p, gr)->ahead, 2);
	s->config.user_fair_share = false;
	p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT(start_of(p, d1) && start_of(p, d2) && start_of(p, d3));
	ASSERT(!start_of(p, e1));
	fw_snapshot_free(s);
}

/* A het job that must run inside one rack, its group 0 listed on a0 and
 * its group 1 on b0: no rack holds both lists (fw__groups_apart), so it
 * never starts, nor is reserved, and no start time is given; the racks
 * had its GPUs, so the reason is no_resources, not its fair-share turn
 * (the walk that skips such a level still learns that a domain had the
 * room), and the estimate says it never fits. */
TEST(groups_no_domain_of_the_required_level_holds_never_start)
{
	struct fw_snapshot *s = two_racks();
	int32_t a0[] = { 0 }, b0[] = { 2 };
	int h = het2(s, "split", 2, 2, 10);
	s->jobs[h].required_level = 0;
	groups_on(s, h, a0, 1, b0, 1);
	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT(decision(p, h, FW_DECIDE_START) == NULL);
	ASSERT(decision(p, h, FW_DECIDE_RESERVE) == NULL);
	const struct fw_pending *r = pending_of(p, h);
	ASSERT_EQ(r->reason, FW_REASON_NO_RESOURCES);
	ASSERT_EQ(r->expected_start, FW_TIME_UNKNOWN);
	ASSERT_EQ(r->unknown_why, FW_REASON_NEVER_FITS);
	s->jobs[h].required_level = FW_LEVEL_NONE; /* across racks: it starts, each group on its node */
	p = run(s, "fairway");
	const struct fw_decision *d = decision(p, h, FW_DECIDE_START);
	ASSERT(d != NULL);
	ASSERT_EQ(group_node(p, d, 0), 0);
	ASSERT_EQ(group_node(p, d, 1), 2);
	fw_snapshot_free(s);
}

/* As a_filtered_gang_is_estimated_when_its_rack_frees, with group
 * filters: a het job of two 8-GPU groups, apart, in
 * one rack (required level), group 0 on a0 only, group 1 on a1 only; a0
 * frees at 100 (the rack's list of group 1 still full: no retry), a1 at
 * 200, when group 1's list in rack ra has exactly its 8 GPUs free: it is
 * expected at 200 (estimate.c, step_helps_groups). */
TEST(a_gang_with_group_filters_is_estimated_when_its_groups_free)
{
	struct fw_snapshot *s = two_racks();
	int a0[] = { 0 }, a1[] = { 1 };
	int x = tb_job(s, "x", 0, 1, 8, 1000, 0), y = tb_job(s, "y", 0, 1, 8, 1000, 0);
	tb_run(s, x, 1, a0, 0xff);
	tb_run(s, y, 1, a1, 0xff);
	s->jobs[x].expected_runtime = 100;
	s->jobs[y].expected_runtime = 200;
	int g = het2(s, "g", 8, 8, 5);
	s->jobs[g].required_level = 0;
	s->jobs[g].expected_runtime = 50;
	groups_on(s, g, a0, 1, a1, 1);
	s->now = 10;
	s->config.reserve_depth = -1; /* no reservation: the estimate walk says when */
	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT(decision(p, g, FW_DECIDE_START) == NULL);
	ASSERT_EQ(pending_of(p, g)->reason, FW_REASON_NODE_FILTER);
	ASSERT_EQ(pending_of(p, g)->a, 1);
	ASSERT_EQ(pending_of(p, g)->b, 0);
	ASSERT_EQ(pending_of(p, g)->expected_start, 200);
	/* elastic, its group 1 asking two tasks where a1 holds one: all of
	 * it never fits, two tasks do at 200 (the group tests let an elastic
	 * group fall short) */
	s->jobs[g].groups[1].count = 2;
	s->jobs[g].min_member = 2;
	p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT(decision(p, g, FW_DECIDE_START) == NULL);
	ASSERT_EQ(pending_of(p, g)->expected_start, 200);
	fw_snapshot_free(s);
}

/* A fractional task may share a GPU: a het job whose group 0 (0.3 GPU)
 * may use a0 only, where every GPU is half taken (no whole GPU free),
 * starts there, group 1 elsewhere (the group tests ask a fractional
 * group for a listed node, not for whole GPUs). */
TEST(a_fractional_group_shares_a_gpu_on_its_node)
{
	struct fw_snapshot *s = two_racks();
	int32_t a0[] = { 0 };

	for (int k = 0; k < 8; k++) {
		char n[8];
		snprintf(n, sizeof n, "h%d", k);
		int r = tb_job(s, n, 0, 1, 1, 500, 0);
		tb_run(s, r, 1, a0, 1u << k);
		s->jobs[r].expected_runtime = 1000;
	}
	int h = het2(s, "het", 1, 1, 10);
	s->jobs[h].groups[0].gpu_milli = 300;
	ASSERT(fw_snapshot_restrict_group(s, h, 0, a0, 1, 0) >= 0);
	s->now = 100;
	const char *pols[] = { "fairway", "kai" };
	for (int k = 0; k < 2; k++) {
		struct fw_plan *p = run(s, pols[k]);
		ASSERT(p != NULL);
		const struct fw_decision *d = decision(p, h, FW_DECIDE_START);
		ASSERT(d != NULL);
		ASSERT_EQ(group_node(p, d, 0), 0);
		ASSERT(group_node(p, d, 1) != 0);
	}
	fw_snapshot_free(s);
}

/* Random snapshots where a third of the pending multi-task jobs become
 * het jobs (a first task in a group of its own; both groups apart at
 * random) and each group gets, at random, no filter, a random half of the
 * nodes, a rack, or a few nodes left out (sometimes its job a filter
 * too): every policy's plan keeps every invariant (the checker tests
 * each task against its group's filter), is deterministic, and no task
 * of a start or reservation lies where fw_snapshot_group_may_use says
 * no; such jobs do start and get reservations. */
TEST(random_group_filters_keep_every_invariant)
{
	static const char *const pols[] = { "fairway", "slurm", "fifo", "kai" };
	int gstarts = 0, greserved = 0, groups = 0;

	for (uint32_t seed = 1; seed <= 40; seed++) {
		struct fw_snapshot *s = random_snapshot(seed);
		uint32_t x = seed * 2246822519u + 3;
		for (int j = 0; j < s->njobs; j++) {
			struct fw_job *job = &s->jobs[j];
			if (job->state != FW_JOB_PENDING || job->groups[0].count < 2 || tb_xs32(&x) % 3)
				continue;
			job->groups[1] = job->groups[0];
			job->groups[1].count = job->groups[0].count - 1;
			job->groups[0].count = 1;
			job->groups[0].apart = job->groups[1].apart = tb_xs32(&x) % 2;
			job->ngroups = 2;
			if (tb_xs32(&x) % 4 == 0) {
				int32_t half[12];
				for (int n = 0; n < 12; n++)
					half[n] = 2 * n + (int32_t)(seed % 2);
				ASSERT(fw_snapshot_restrict_job(s, j, half, 12) >= 0);
			}
			for (int g = 0; g < 2; g++) {
				int32_t v[24], n = 0;
				switch (tb_xs32(&x) % 4) {
				case 0:
					continue;
				case 1:
					for (int k = 0; k < 24; k++)
						if (tb_xs32(&x) % 2)
							v[n++] = k;
					break;
				case 2:
					for (int k = 0; k < 4; k++)
						v[n++] = 4 * (int32_t)(tb_xs32(&x) % 6) + k;
					break;
				default:
					for (int k = 0; k < 3; k++)
						v[n++] = (int32_t)(tb_xs32(&x) % 24);
				}
				if (n == 0)
					continue;
				ASSERT(fw_snapshot_restrict_group(s, j, g, v, n, n == 3) >= 0);
				groups++;
			}
		}
		for (int k = 0; k < 4; k++) {
			struct fw_plan *p = run(s, pols[k]);
			ASSERT(p != NULL);
			for (int i = 0; i < p->ndecisions; i++) {
				const struct fw_decision *d = &p->decisions[i];
				bool het = s->jobs[d->job].ngroups == 2 && s->jobs[d->job].state == FW_JOB_PENDING;
				bool placed = d->kind == FW_DECIDE_START || d->kind == FW_DECIDE_RESERVE;
				gstarts += het && d->kind == FW_DECIDE_START;
				greserved += het && d->kind == FW_DECIDE_RESERVE;
				for (int32_t t = 0; placed && t < d->alloc_count; t++) {
					const struct fw_task_alloc *a = &p->allocs[d->alloc_first + t];
					ASSERT(fw_snapshot_group_may_use(s, d->job, a->group, a->node));
				}
			}
			same_plan_again(s, pols[k], p);
		}
		fw_snapshot_free(s);
	}
	ASSERT(groups > 500);
	ASSERT(gstarts > 150);
	ASSERT(greserved > 50);
}

/* A group filter on every group is the job's filter: one pending job at
 * a time (one_pending's scene), restricted to a random half of the nodes
 * either way, starts under both or neither, each task within the half,
 * and a job that waits is expected at the same time under both (the
 * estimate walk's group tests prune no step a fit needs); a third of the
 * split jobs elastic (min_member 1). */
TEST(a_filter_on_every_group_places_as_the_jobs)
{
	int starts = 0, waits = 0, estimated = 0;
	for (uint32_t seed = 1; seed <= 30; seed++) {
		uint32_t x = seed * 747796405u + 1;
		int32_t half[24], nh = 0;
		for (int n = 0; n < 24; n++)
			if (tb_xs32(&x) % 2)
				half[nh++] = n;
		for (int j = 0; j < 120; j++) {
			bool started[2];
			fw_time expected[2];
			for (int per_group = 0; per_group <= 1; per_group++) {
				struct fw_snapshot *s = one_pending(seed, j, false, false);
				struct fw_job *job = &s->jobs[j];
				if (job->groups[0].count >= 2) { /* two groups, so "every group" means two */
					job->groups[1] = job->groups[0];
					job->groups[1].count = job->groups[0].count - 1;
					job->groups[0].count = 1;
					job->ngroups = 2;
					if (j % 3 == 0) /* elastic: either group may start short */
						job->min_member = 1;
				}
				for (int g = 0; per_group && g < job->ngroups; g++)
					ASSERT(fw_snapshot_restrict_group(s, j, g, half, nh, 0) >= 0);
				if (!per_group)
					ASSERT(fw_snapshot_restrict_job(s, j, half, nh) >= 0);
				struct fw_plan *p = run(s, "kai");
				ASSERT(p != NULL);
				const struct fw_decision *d = start_of(p, j);
				const struct fw_pending *w = fw_plan_pending_for(p, j);
				started[per_group] = d != NULL;
				expected[per_group] = w ? w->expected_start : -1;
				for (int32_t k = 0; d && k < d->alloc_count; k++)
					ASSERT(fw_snapshot_job_may_use(s, j, p->allocs[d->alloc_first + k].node) ||
					       fw_snapshot_group_may_use(s, j, p->allocs[d->alloc_first + k].group,
									 p->allocs[d->alloc_first + k].node));
				fw_snapshot_free(s);
			}
			ASSERT_EQ(started[0], started[1]);
			ASSERT_EQ(expected[0], expected[1]);
			starts += started[0];
			waits += !started[0];
			estimated += !started[0] && expected[0] != FW_TIME_UNKNOWN;
		}
	}
	ASSERT(starts > 1000);
	ASSERT(waits > 100);
	ASSERT(estimated > 50);
}

static void c_one_per_node(struct fw_snapshot *s, struct fw_plan *p)
{
	s->jobs[CS_GANG].groups[0].one_per_node = true;
	task(p, CS_GANG, FW_DECIDE_START, 1)->node = task(p, CS_GANG, FW_DECIDE_START, 0)->node;
}

static void c_apart(struct fw_snapshot *s, struct fw_plan *p)
{
	struct fw_job *g = &s->jobs[CS_GANG]; /* two groups of one task, apart */
	struct fw_task_alloc *t = task(p, CS_GANG, FW_DECIDE_START, 1);

	g->groups[0].count = 1;
	g->groups[1] = g->groups[0];
	g->groups[1].apart = true;
	g->ngroups = 2;
	t->group = 1;
	t->node = task(p, CS_GANG, FW_DECIDE_START, 0)->node;
}

static void c_node_filter(struct fw_snapshot *s, struct fw_plan *p)
{
	int32_t a0[] = { 0 };
	(void)p;
	fw_snapshot_restrict_job(s, CS_SMALL, a0, 1); /* it started on b0 */
}

static void c_except_filter(struct fw_snapshot *s, struct fw_plan *p)
{
	int32_t b0[] = { 2 };
	(void)p;
	fw_snapshot_restrict_job_except(s, CS_SMALL, b0, 1); /* it started on b0 */
}

static void c_group_filter(struct fw_snapshot *s, struct fw_plan *p)
{
	int32_t a0[] = { 0 };
	(void)p;
	fw_snapshot_restrict_group(s, CS_SMALL, 0, a0, 1, 0); /* it started on b0 */
}

static void c_group_except(struct fw_snapshot *s, struct fw_plan *p)
{
	int32_t b0[] = { 2 };
	(void)p;
	fw_snapshot_restrict_group(s, CS_SMALL, 0, b0, 1, 1); /* it started on b0 */
}

TEST(checker_names_every_broken_rule)
{
	static const struct {
		const char *what;
		void (*corrupt)(struct fw_snapshot *, struct fw_plan *);
		const char *msg;
	} c[] = {
		{ "a task on a node that does not exist", c_bad_node, "job small: a task names a bad node or group" },
		{ "a task of a group the job lacks", c_bad_group, "job small: a task names a bad node or group" },
		{ "a GPU index beyond the node's GPUs", c_gpu_beyond, "job small: GPU index beyond node b0" },
		{ "a group given more tasks than it has", c_group_overfull, "job gang: group 0 got more tasks than it has" },
		{ "a job evicted twice", c_evicted_twice, "job run evicted twice" },
		{ "start on an unschedulable node", c_unschedulable, "started on unschedulable node b0" },
		{ "start on an unhealthy node", c_unhealthy, "started on unhealthy node b0" },
		{ "a task with 5 of its 4 GPUs", c_gpu_count, "a task got 5 GPUs x 1000 milli, its group asks 4 x 1000" },
		{ "a bad GPU", c_bad_gpu, "was given a bad GPU on b0" },
		{ "another GPU model", c_model, "wants GPU model B200, node b0 has H100" },
		{ "a gang across racks", c_two_racks, "gang spans two domains of its required level" },
		{ "CPU over-committed", c_cpu, "node b0: CPU or memory over-committed" },
		{ "a queue over its limit", c_limit, "queue q is over its gpu limit: 28000 > 20000" },
		{ "a queue over a GPU model limit", c_model_limit,
		  "queue q is over its limit on GPU model H100: 28000 > 20000 milli-GPU" },
		{ "a job started twice", c_started_twice, "job small started twice" },
		{ "a start of a running job", c_start_running, "start of a job that is not pending" },
		{ "an eviction of a pending job", c_evict_pending, "eviction of a job that is not running" },
		{ "an eviction of a job that is not preemptible", c_evict_protected,
		  "job run is not preemptible but was evicted" },
		{ "an eviction for nothing", c_evict_for_nothing, "job run was evicted for nothing" },
		{ "a pending entry for a started job", c_pending_started, "names a started, repeated or unknown job" },
		{ "a pending job without an entry", c_pending_missing, "neither started nor has a reason" },
		{ "a pending entry without a reason", c_pending_no_reason, "has no pending reason" },
		{ "pending entries out of order", c_pending_order, "not in job order" },
		{ "-1 jobs ahead", c_pending_ahead, "-1 jobs ahead of it" },
		{ "an estimate before now", c_estimate_past, "job late is expected to start at t=99, not after now (100)" },
		{ "an estimate and an unknown reason", c_estimate_and_unknown,
		  "an expected start and a reason it is unknown" },
		{ "a reservation without an estimate", c_reserved_unknown, "has a reservation but no expected start" },
		{ "a reservation at another time than its estimate", c_reserved_elsewhen,
		  "job big: expected start t=1060, but its reservation is at t=1000" },
		{ "an estimate before now, in dates", c_estimate_past_utc,
		  "job late is expected to start at 1970-01-01T00:01:39Z, not after now (1970-01-01T00:01:40Z)" },
		{ "a reservation at another time than its estimate, in dates", c_reserved_elsewhen_utc,
		  "job big: expected start 1970-01-01T00:17:40Z, but its reservation is at 1970-01-01T00:16:40Z" },
		{ "backfill that delays a reservation, in dates", c_reservation_delayed_utc,
		  "the reservation of job big at 1970-01-01T00:16:40Z finds GPU 0 of b0 busy: a start delays it" },
		{ "a reservation in the past", c_reservation_past, "reservation for job big is in the past or incomplete" },
		{ "a reservation of 3 of 4 tasks", c_reservation_partial, "is in the past or incomplete" },
		{ "backfill that delays a reservation", c_reservation_delayed,
		  "the reservation of job big at t=1000 finds GPU 0 of b0 busy: a start delays it" },
		{ "a reservation short of CPU", c_reservation_cpu, "the reservation of job big finds node" },
		{ "a reservation for a started job", c_reservation_started,
		  "a reservation for job gang, which is running, starts in this plan" },
		{ "two reservations at once on a node", c_reservations_overlap,
		  "the reservations of jobs big and late overlap in time on node" },
		{ "a reservation of 4 tasks for a 2-task gang", c_reservation_oversized,
		  "reservation for job gang holds 4 tasks; the job has 2" },
		{ "a reservation across racks", c_reservation_two_racks, "job big spans two domains of its required level" },
		{ "two tasks on one node of a group that asks one a node", c_one_per_node,
		  "job gang: two tasks of group 0 on node a0, which asks one a node" },
		{ "two groups on one node, one of them apart", c_apart,
		  "job gang: groups 0 and 1 share node a0, and one asks to be apart" },
		{ "a start outside the job's node filter", c_node_filter,
		  "job small placed on node b0, outside its node filter" },
		{ "a start on a node the job's except filter leaves out", c_except_filter,
		  "job small placed on node b0, outside its node filter" },
		{ "a start outside the group's node filter", c_group_filter,
		  "job small: a task of group 0 placed on node b0, outside the group's node filter" },
		{ "a start on a node the group's except filter leaves out", c_group_except,
		  "job small: a task of group 0 placed on node b0, outside the group's node filter" },
	};
	struct fw_diag d;

	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		struct fw_snapshot *s = checker_scene();
		struct fw_plan *p = run(s, "fairway");
		ASSERT(p != NULL);
		ASSERT(decision(p, CS_GANG, FW_DECIDE_START) && decision(p, CS_SMALL, FW_DECIDE_START));
		ASSERT(decision(p, CS_BIG, FW_DECIDE_RESERVE) && pending_of(p, CS_LATE));
		ASSERT_EQ(decision(p, CS_BIG, FW_DECIDE_RESERVE)->at, 1000);
		ASSERT_EQ(task(p, CS_SMALL, FW_DECIDE_START, 0)->node, 2);
		c[i].corrupt(s, p);
		memset(&d, 0, sizeof d);
		int rc = fw_plan_check(s, p, &A, &d);
		if (rc != FW_EINVARIANT || !strstr(d.msg, c[i].msg))
			fprintf(stderr, "  %s: rc %d field %s: %s\n", c[i].what, rc, d.field, d.msg);
		ASSERT_EQ(rc, FW_EINVARIANT);
		ASSERT_STR_CONTAINS(d.msg, c[i].msg);
		fw_snapshot_free(s);
	}
}

TEST(out_of_memory_fails_cleanly_at_every_step)
{
	struct fw_snapshot *s = random_snapshot(7);
	struct fw_plan *p = NULL;
	int rc = FW_ENOMEM, steps = 0;
	int32_t some[] = { 1, 4, 5, 9, 12, 13, 20 }, first = -1;
	for (int j = 0; j < s->njobs; j += 4) /* node filters: their index's allocations too */
		if (s->jobs[j].state == FW_JOB_PENDING)
			first = first >= 0 && j % 8 ? fw_snapshot_restrict_job_as(s, j, first)
				: j % 3 ? fw_snapshot_restrict_job(s, j, some, 7)
					: fw_snapshot_restrict_job_except(s, j, some, 2);
	ASSERT(first >= 0);
	for (int j = 2; j < s->njobs; j += 4) /* and group filters */
		if (s->jobs[j].state == FW_JOB_PENDING)
			ASSERT(fw_snapshot_restrict_group(s, j, 0, some, 7, j % 3 == 0) >= 0);
	for (size_t lim = 4096; rc == FW_ENOMEM; lim += 4096, steps++) {
		struct fw_arena b;
		fw_arena_init(&b, 4096);
		b.limit = lim;
		rc = fw_cycle_run(s, NULL, &b, &p);
		ASSERT(rc == FW_OK || rc == FW_ENOMEM);
		fw_arena_release(&b);
	}
	ASSERT(steps > 3);
	fw_snapshot_free(s);
}

/* n0: 8 GPUs busy until now+100; n1: 4 busy until now+1000.  A 2x8 gang
 * must wait for both; a short job may backfill, a long one may not. */
static struct fw_snapshot *backfill_case(void)
{
	struct fw_snapshot *s = fw_snapshot_new();
	tb_node(s, "n0", 8, NULL, NULL, NULL, NULL);
	tb_node(s, "n1", 8, NULL, NULL, NULL, NULL);
	tb_queue(s, "q", -1, 16, -1, 1);
	s->now = 1000;
	int a = tb_job(s, "a", 0, 1, 8, 1000, 0), b = tb_job(s, "b", 0, 1, 4, 1000, 0);
	int n0[] = { 0 }, n1[] = { 1 };
	tb_run(s, a, 1, n0, 0xff);
	tb_run(s, b, 1, n1, 0x0f);
	s->jobs[a].start_time = 900;
	s->jobs[a].expected_runtime = 200;  /* ends 1100 */
	s->jobs[b].start_time = 0;
	s->jobs[b].expected_runtime = 2000; /* ends 2000 */
	int big = tb_job(s, "big", 0, 2, 8, 1000, 10);
	s->jobs[big].expected_runtime = 500;
	int shortj = tb_job(s, "short", 0, 1, 2, 1000, 20);
	s->jobs[shortj].expected_runtime = 50;
	int longj = tb_job(s, "long", 0, 1, 2, 1000, 30);
	s->jobs[longj].expected_runtime = 5000;
	s->config.xfactor_cap_s = -1; /* submit order: the case is the reservation walk's */
	return s;
}

static const struct fw_decision *reservation_of(const struct fw_plan *p, int job)
{
	for (int i = 0; i < p->ndecisions; i++)
		if (p->decisions[i].kind == FW_DECIDE_RESERVE && p->decisions[i].job == job)
			return &p->decisions[i];
	return NULL;
}

/* n one-GPU nodes, each busy with a one-GPU job that ends at now + 10 x
 * (its place in a shuffled order + 1), halved with ties; a pending gang
 * of 10 one-GPU tasks, then a one-GPU job.  The end events are sorted by
 * merging below 256 of them and by a radix sort above: both must walk
 * the ends in time order, so the gang is reserved at the 10th end, on
 * the nodes of the first ten ends, and the job behind it at the 11th. */
static void many_ends(int n, bool ties)
{
	struct fw_snapshot *s = fw_snapshot_new();
	fw_time end[400], sorted[400];
	uint32_t x = 12345u;
	char name[16];

	ASSERT(n <= 400);
	tb_queue(s, "q", -1, n, -1, 1);
	for (int i = 0; i < n; i++)
		end[i] = i;
	for (int i = n - 1; i > 0; i--) { /* Fisher-Yates with a fixed LCG */
		x = x * 1664525u + 1013904223u;
		int k = (int)((x >> 8) % (uint32_t)(i + 1));
		fw_time t = end[i];
		end[i] = end[k];
		end[k] = t;
	}
	s->now = 100;
	for (int i = 0; i < n; i++) {
		end[i] = s->now + 10 * ((ties ? end[i] / 2 : end[i]) + 1);
		snprintf(name, sizeof name, "n%03d", i);
		tb_node(s, name, 1, NULL, NULL, NULL, NULL);
		snprintf(name, sizeof name, "r%03d", i);
		int j = tb_job(s, name, 0, 1, 1, 1000, 0);
		tb_run(s, j, 1, &i, 0x1);
		s->jobs[j].start_time = 0;
		s->jobs[j].expected_runtime = end[i];
		sorted[i] = end[i];
	}
	for (int i = 1; i < n; i++) /* insertion sort: the test's own order */
		for (int k = i; k > 0 && sorted[k - 1] > sorted[k]; k--) {
			fw_time t = sorted[k];
			sorted[k] = sorted[k - 1];
			sorted[k - 1] = t;
		}
	int g = tb_job(s, "gang", 0, 10, 1, 1000, 1), late = tb_job(s, "late", 0, 1, 1, 1000, 2);
	s->jobs[g].expected_runtime = 1000000;
	s->jobs[late].expected_runtime = 1000000;

	struct fw_plan *p = run(s, "fairway");
	const struct fw_decision *d;
	ASSERT(p != NULL);
	ASSERT((d = reservation_of(p, g)) != NULL);
	ASSERT_EQ(d->at, sorted[9]);
	ASSERT_EQ(fw_plan_pending_for(p, g)->expected_start, sorted[9]);
	for (int k = 0; k < d->alloc_count && !ties; k++)
		ASSERT(end[p->allocs[d->alloc_first + k].node] <= sorted[9]);
	ASSERT((d = reservation_of(p, late)) != NULL);
	ASSERT_EQ(d->at, sorted[10]);
	fw_snapshot_free(s);
}

TEST(reservations_walk_the_ends_in_time_order_however_many)
{
	many_ends(100, false); /* sorted by merging */
	many_ends(300, false); /* by the radix sort */
	many_ends(100, true);
	many_ends(300, true);
}

/* A gang of fractional tasks needs a share of a GPU per task, not a GPU:
 * six half-GPU A100 tasks fit the 4 A100 GPUs of c0 (on 3 of them) once
 * the job holding them ends at 600, so the gang is reserved there.  The
 * "can it ever fit" test counted each task as a whole GPU (6 > 4) and
 * refused the reservation, leaving the gang to be starved by backfill. */
TEST(a_fractional_gang_of_more_tasks_than_gpus_is_reserved)
{
	const char *pols[] = { "slurm", "fairway" };

	for (int k = 0; k < 2; k++) {
		struct fw_snapshot *s = two_racks();
		int c0 = tb_node(s, "c0", 4, "A100", "rc", NULL, NULL);
		int r = tb_job(s, "running", 0, 1, 4, 1000, 0);
		int g = tb_job(s, "frac", 0, 6, 1, 500, 10);
		const struct fw_decision *d;
		struct fw_plan *p;

		snprintf(s->jobs[r].groups[0].gpu_model, FW_NAME_MAX, "A100");
		snprintf(s->jobs[g].groups[0].gpu_model, FW_NAME_MAX, "A100");
		tb_run(s, r, 1, &c0, 0xf);
		s->jobs[r].expected_runtime = 600;
		s->jobs[g].expected_runtime = 100;
		ASSERT((p = run(s, pols[k])) != NULL);
		ASSERT((d = reservation_of(p, g)) != NULL);
		ASSERT_EQ(d->at, 600);
		ASSERT_EQ(fw_plan_pending_for(p, g)->expected_start, 600);
		fw_snapshot_free(s);
	}
}

TEST(easy_backfill_never_delays_the_reserved_gang)
{
	const char *pols[] = { "slurm", "fairway" };
	for (int k = 0; k < 2; k++) {
		struct fw_snapshot *s = backfill_case();
		struct fw_plan *p = run(s, pols[k]);
		ASSERT(p != NULL);
		const struct fw_decision *r = reservation_of(p, 2);
		ASSERT(r != NULL);
		ASSERT_EQ(r->at, 2000);
		ASSERT_EQ(r->alloc_count, 2);
		ASSERT_EQ(fw_plan_pending_for(p, 2)->reason, FW_REASON_HAS_RESERVATION);
		ASSERT_EQ(fw_plan_pending_for(p, 2)->b, 1000);
		ASSERT(start_of(p, 3) != NULL && start_of(p, 3)->kind == FW_DECIDE_START);
		ASSERT(fw_plan_pending_for(p, 4) != NULL);
		if (k == 0) { /* slurm reserves for one job: long waits for big's */
			ASSERT_EQ(fw_plan_pending_for(p, 4)->reason, FW_REASON_RESERVED);
			ASSERT_EQ(fw_plan_pending_for(p, 4)->a, 2);
		} else { /* fairway's second reservation follows big's on its node */
			const struct fw_decision *l = reservation_of(p, 4);
			ASSERT(l != NULL);
			ASSERT_EQ(l->at, 2500); /* big holds n0 and n1 from 2000 to 2500 */
			ASSERT_EQ(fw_plan_pending_for(p, 4)->reason, FW_REASON_HAS_RESERVATION);
			ASSERT_OK(fw_plan_check(s, p, &A, &(struct fw_diag){ 0 }));
		}
		fw_snapshot_free(s);
	}
}

TEST(kai_has_no_reservations_so_the_long_job_jumps_ahead)
{
	struct fw_snapshot *s = backfill_case();
	struct fw_plan *p = run(s, "kai");
	ASSERT(p != NULL);
	ASSERT(reservation_of(p, 2) == NULL);
	ASSERT(start_of(p, 3) != NULL);
	ASSERT(start_of(p, 4) != NULL); /* it delays `big`: KAI does not care */
	ASSERT_EQ(fw_plan_pending_for(p, 2)->reason, FW_REASON_GANG_NO_FIT);
	fw_snapshot_free(s);
}

TEST(checker_catches_a_backfill_that_delays_a_reservation)
{
	struct fw_snapshot *s = backfill_case();
	struct fw_plan *p = run(s, "slurm");
	struct fw_diag d;
	ASSERT(p != NULL);
	ASSERT_OK(fw_plan_check(s, p, &A, &d));
	s->jobs[3].expected_runtime = 5000; /* `short` now runs past t=2000 */
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "a start delays it");
	fw_snapshot_free(s);
}

/* A reservation is for a job that waits: not for a running job, not for
 * one the plan starts, not twice for one job. */
TEST(checker_catches_a_reservation_for_a_job_that_does_not_wait)
{
	struct fw_snapshot *s = backfill_case();
	struct fw_plan *p = run(s, "slurm");
	struct fw_diag d;
	struct fw_decision *r = NULL;
	ASSERT(p != NULL);
	for (int i = 0; i < p->ndecisions; i++)
		if (p->decisions[i].kind == FW_DECIDE_RESERVE)
			r = &p->decisions[i];
	ASSERT(r != NULL && r->job == 2);
	r->job = 0; /* "a", running, with the same task shape */
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "reservation");
	r->job = 2;
	ASSERT_OK(fw_plan_check(s, p, &A, &d));
	fw_snapshot_free(s);
}

/* ---- start-time estimates (lib/estimate.c), computed by hand ---- */

TEST(estimates_follow_the_reservation_walk)
{
	const char *pols[] = { "slurm", "fairway" };
	for (int k = 0; k < 2; k++) {
		struct fw_snapshot *s = backfill_case();
		int wide = tb_job(s, "wide", 0, 1, 8, 1000, 40);
		s->jobs[wide].expected_runtime = 100;
		struct fw_plan *p = run(s, pols[k]);
		ASSERT(p != NULL);
		/* big: its reservation's time */
		ASSERT_EQ(fw_plan_pending_for(p, 2)->expected_start, 2000);
		ASSERT_EQ(fw_plan_pending_for(p, 2)->unknown_why, FW_REASON_NONE);
		ASSERT_EQ(fw_plan_pending_for(p, 2)->ahead, 0);
		/* long (5000 s) cannot end before big's reservation at 2000:
		 * it fits once big ends, at 2500.  wide (100 s) can: under
		 * slurm (one reservation) it backfills on n0 once a ends at
		 * 1100, as that cycle will (the jobs ahead's walk lets a
		 * reserved node take a job that ends by its reservation);
		 * fairway reserves for it too, at 2500 (reserve.c holds the
		 * reserved nodes until big ends) */
		ASSERT_EQ(fw_plan_pending_for(p, 4)->expected_start, 2500);
		ASSERT_EQ(fw_plan_pending_for(p, wide)->expected_start, k == 0 ? 1100 : 2500);
		if (k == 1) { /* fairway: submit order; slurm's score puts wide first */
			ASSERT_EQ(fw_plan_pending_for(p, 4)->ahead, 1);
			ASSERT_EQ(fw_plan_pending_for(p, wide)->ahead, 2); /* big, long; short started */
		}
		/* the shape walk alone holds n0 and n1 for big until it ends
		 * at 2000 + 500; then either fits */
		s->config.estimate_depth = -1;
		p = run(s, pols[k]);
		ASSERT(p != NULL);
		ASSERT_EQ(fw_plan_pending_for(p, 4)->expected_start, 2500);
		ASSERT_EQ(fw_plan_pending_for(p, wide)->expected_start, 2500);
		fw_snapshot_free(s);
	}
}

TEST(estimate_is_unknown_when_blockers_never_end)
{
	struct fw_snapshot *s = backfill_case();
	int wide = tb_job(s, "wide", 0, 1, 8, 1000, 40);
	s->jobs[wide].expected_runtime = 100;
	s->jobs[1].expected_runtime = 0; /* b holds 4 GPUs of n1 for ever */
	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT(reservation_of(p, 2) == NULL); /* no time for big: no reservation */
	const struct fw_pending *big = fw_plan_pending_for(p, 2);
	ASSERT_EQ(big->expected_start, FW_TIME_UNKNOWN);
	ASSERT_EQ(big->unknown_why, FW_REASON_UNKNOWN_RUNTIME);
	ASSERT_EQ(big->why_a, 16);
	/* n0's 8 once wide (reserved there 1100..1200) ends, n1's 4 once
	 * short and long end */
	ASSERT_EQ(big->why_b, 12);
	ASSERT(start_of(p, 3) != NULL && start_of(p, 4) != NULL);
	/* wide is reserved n0 for when a ends at 1100 */
	ASSERT_EQ(reservation_of(p, wide)->at, 1100);
	ASSERT_EQ(fw_plan_pending_for(p, wide)->expected_start, 1100);
	ASSERT_EQ(fw_plan_pending_for(p, wide)->ahead, 1);
	fw_snapshot_free(s);
}

/* A running job without a runtime ends, for planning, after its queue's
 * default runtime (inherited from the parent when the leaf has none). */
TEST(queue_default_runtime_gives_unknown_runtimes_an_end)
{
	struct fw_snapshot *s = backfill_case();
	int top = tb_queue(s, "top", -1, 16, -1, 1);
	s->queues[0].parent = top; /* q inherits top's default */
	s->queues[top].default_runtime_s = 3000;
	s->jobs[1].expected_runtime = 0; /* b: started at 0, ends at 3000 */
	ASSERT_EQ(fw_job_runtime(s, &s->jobs[1]), 3000);
	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT(reservation_of(p, 2) != NULL);
	ASSERT_EQ(reservation_of(p, 2)->at, 3000);
	ASSERT_EQ(fw_plan_pending_for(p, 2)->expected_start, 3000);
	/* the leaf's own value wins over the parent's */
	s->queues[0].default_runtime_s = 2500;
	ASSERT_EQ(fw_job_runtime(s, &s->jobs[1]), 2500);
	s->jobs[1].expected_runtime = 10; /* the job's own runtime wins */
	ASSERT_EQ(fw_job_runtime(s, &s->jobs[1]), 10);
	fw_snapshot_free(s);
}

TEST(estimates_follow_backfill_not_queue_position)
{
	struct fw_snapshot *s = backfill_case();
	int n2 = tb_node(s, "n2", 4, NULL, NULL, NULL, NULL); /* too small for big */
	int c = tb_job(s, "c", 0, 1, 4, 1000, 0), nodes[] = { n2 };
	tb_run(s, c, 1, nodes, 0xf);
	s->jobs[c].start_time = 1000;
	s->jobs[c].expected_runtime = 200; /* n2 frees at 1200 */
	int later = tb_job(s, "later", 0, 1, 1, 1000, 50);
	s->jobs[later].expected_runtime = 5000;
	struct fw_plan *p = run(s, "slurm"); /* EASY: one reservation */
	ASSERT(p != NULL);
	ASSERT_EQ(reservation_of(p, 2)->at, 2000);
	ASSERT(reservation_of(p, 4) == NULL);
	/* long and later are behind big in line, but n2 is not reserved:
	 * EASY backfill starts them there at 1200, ahead of big's 2000 */
	ASSERT_EQ(fw_plan_pending_for(p, 4)->expected_start, 1200);
	ASSERT_EQ(fw_plan_pending_for(p, later)->expected_start, 1200);
	ASSERT_EQ(fw_plan_pending_for(p, later)->ahead, 2);
	/* with fairway's 16 reservations, long reserves n2 at 1200, so later
	 * waits for big's nodes: held until 2000 + 500 */
	p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT_EQ(reservation_of(p, 4)->at, 1200);
	ASSERT_EQ(fw_plan_pending_for(p, 4)->expected_start, 1200);
	ASSERT_EQ(fw_plan_pending_for(p, later)->expected_start, 2500);
	ASSERT_EQ(fw_plan_pending_for(p, later)->ahead, 2);
	/* under strict order the line decides: nobody passes big */
	p = run(s, "fifo");
	ASSERT(p != NULL);
	ASSERT_EQ(fw_plan_pending_for(p, 4)->expected_start, 2000);
	ASSERT_EQ(fw_plan_pending_for(p, later)->expected_start, 2000);
	fw_snapshot_free(s);
}

TEST(strict_order_estimates_wait_for_the_head_of_the_line)
{
	struct fw_snapshot *s = backfill_case();
	struct fw_plan *p = run(s, "fifo");
	ASSERT(p != NULL);
	/* big: n0 frees at 1100, n1 at 2000; short would fit now and long
	 * too, but FIFO serves big first */
	for (int j = 2; j <= 4; j++) {
		ASSERT_EQ(fw_plan_pending_for(p, j)->expected_start, 2000);
		ASSERT_EQ(fw_plan_pending_for(p, j)->ahead, j - 2);
	}
	s->jobs[1].expected_runtime = 0; /* n1 never frees: big never starts */
	p = run(s, "fifo");
	ASSERT(p != NULL);
	ASSERT_EQ(fw_plan_pending_for(p, 2)->unknown_why, FW_REASON_UNKNOWN_RUNTIME);
	for (int j = 3; j <= 4; j++) {
		ASSERT_EQ(fw_plan_pending_for(p, j)->expected_start, FW_TIME_UNKNOWN);
		ASSERT_EQ(fw_plan_pending_for(p, j)->unknown_why, FW_REASON_HEAD_OF_LINE);
		ASSERT_EQ(fw_plan_pending_for(p, j)->why_a, 2);
	}
	fw_snapshot_free(s);
}

TEST(estimate_is_unknown_over_quota_and_when_it_can_never_fit)
{
	struct fw_snapshot *s = two_racks();
	int capped = tb_queue(s, "capped", -1, 8, 8, 1);
	int over = tb_job(s, "over", capped, 2, 8, 1000, 0);
	int huge = tb_job(s, "huge", 0, 5, 8, 1000, 1); /* 40 GPUs, cluster has 32 */
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(fw_plan_pending_for(p, over)->expected_start, FW_TIME_UNKNOWN);
	ASSERT_EQ(fw_plan_pending_for(p, over)->reason, FW_REASON_OVER_QUOTA);
	ASSERT_EQ(fw_plan_pending_for(p, over)->a, 8000); /* 8 GPUs over, in milli */
	/* 16 GPUs alone, over the limit of 8: never while it holds */
	ASSERT_EQ(fw_plan_pending_for(p, over)->unknown_why, FW_REASON_QUEUE_LIMIT);
	ASSERT_EQ(fw_plan_pending_for(p, over)->why_a, 16000);
	ASSERT_EQ(fw_plan_pending_for(p, over)->why_b, FW_LIMIT_ARG(capped, FW_RES_GPU));
	ASSERT_EQ(fw_plan_pending_for(p, huge)->expected_start, FW_TIME_UNKNOWN);
	ASSERT_EQ(fw_plan_pending_for(p, huge)->unknown_why, FW_REASON_NEVER_FITS);
	ASSERT_EQ(fw_plan_pending_for(p, huge)->why_b, 32);
	fw_snapshot_free(s);
}

/* An over-quota job's reason names the queue whose limit binds and its
 * limit (FW_LIMIT_ARG): its own queue's, or a parent's (the QA pass's
 * lim3.yaml: dept limited to 16, x under it asking 24 at once), and says
 * it never starts while the limit holds when the job alone needs more;
 * one that fits the limit alone waits for the queue's running jobs. */
TEST(over_quota_names_the_queue_whose_limit_binds)
{
	struct fw_snapshot *s = two_racks();
	int dept = tb_queue(s, "dept", -1, 8, 16, 1), x = tb_queue(s, "x", dept, 8, -1, 1);
	int lim = tb_queue(s, "lim", -1, 0, 4, 1);
	int x1 = tb_job(s, "x1", x, 3, 8, 1000, 0);
	int run4 = tb_job(s, "run4", lim, 1, 4, 1000, 0);
	int more = tb_job(s, "more", lim, 1, 2, 1000, 1);
	char m[FW_REASON_TEXT_MAX + 2 * FW_NAME_MAX];
	struct fw_plan *p;

	int n0[] = { 0 };
	tb_run(s, run4, 1, n0, 0xf); /* lim holds its 4 GPUs */
	ASSERT((p = run(s, NULL)) != NULL);
	const struct fw_pending *r = fw_plan_pending_for(p, x1);
	ASSERT_EQ(r->reason, FW_REASON_OVER_QUOTA);
	ASSERT_EQ(r->b, FW_LIMIT_ARG(dept, FW_RES_GPU));
	ASSERT_EQ(r->unknown_why, FW_REASON_QUEUE_LIMIT);
	ASSERT_STR_EQ(fw_reason_format_job(s, x1, r->reason, r->a, r->b, m, sizeof m),
		      "over a queue limit for good: it needs 24 GPUs and queue dept (above its queue x) has a GPU "
		      "limit of 16 GPUs: it can never start while that limit holds (raise it, or resubmit the job "
		      "smaller)");
	ASSERT_STR_CONTAINS(fw_reason_format(r->unknown_why, r->why_a, r->why_b, m, sizeof m),
			    "it needs 24 GPUs, more than the GPU limit of queue #");
	r = fw_plan_pending_for(p, more);
	ASSERT_EQ(r->reason, FW_REASON_OVER_QUOTA);
	ASSERT_EQ(r->unknown_why, FW_REASON_OVER_QUOTA);
	ASSERT_EQ(r->b, FW_LIMIT_ARG(lim, FW_RES_GPU));
	ASSERT_STR_EQ(fw_reason_format_job(s, more, r->reason, r->a, r->b, m, sizeof m),
		      "over quota: starting it would put its queue lim 2 GPUs over its GPU limit of 4 GPUs");
	fw_snapshot_free(s);
}

/* The job's estimate is "never", needing a GPUs where at most b fit
 * (a < 0: not checked). */
static void never_fits(const struct fw_plan *p, int job, int64_t a, int64_t b)
{
	const struct fw_pending *r = fw_plan_pending_for(p, job);

	ASSERT(r != NULL);
	ASSERT_EQ(r->unknown_why, FW_REASON_NEVER_FITS);
	if (a >= 0)
		ASSERT_EQ(r->why_a, a);
	ASSERT_EQ(r->why_b, b);
}

/* Why never: the bound that binds is the one reported (why_b), not the
 * cluster's size: a rack holds 16 of the 32 GPUs, and no node has a B200. */
TEST(estimate_never_fits_names_the_binding_bound)
{
	struct fw_snapshot *s = two_racks();
	int rack = tb_job(s, "rack", 0, 3, 8, 1000, 0); /* 24 GPUs, one rack required */
	int model = tb_job(s, "model", 0, 1, 1, 1000, 1);
	struct fw_plan *p;

	s->jobs[rack].required_level = 0;
	snprintf(s->jobs[model].groups[0].gpu_model, sizeof s->jobs[model].groups[0].gpu_model, "B200");
	ASSERT((p = run(s, NULL)) != NULL);
	never_fits(p, rack, 24, 16);
	never_fits(p, model, -1, 0);
	fw_snapshot_free(s);

	/* a gang of a GPU model in one rack counts only that model's GPUs in a
	 * rack: the two A100 nodes hold its 16 GPUs, but in two racks, so 8 of
	 * 16 fit one rack (its H100s do not count) */
	s = two_racks();
	tb_node(s, "c0", 8, "A100", "ra", NULL, NULL);
	tb_node(s, "c1", 8, "A100", "rb", NULL, NULL);
	int a100 = tb_job(s, "a100-gang", 0, 2, 8, 1000, 0);
	s->jobs[a100].required_level = 0;
	snprintf(s->jobs[a100].groups[0].gpu_model, sizeof s->jobs[a100].groups[0].gpu_model, "A100");
	ASSERT((p = run(s, NULL)) != NULL);
	never_fits(p, a100, 16, 8);
	fw_snapshot_free(s);
}

/* A task no node can hold never starts, even with the cluster empty: a
 * 16-GPU task on 8-GPU nodes, a task asking more CPU or memory than any
 * node has.  The estimate says never (not "once the jobs end"), naming
 * the task's need and the largest node's. */
TEST(estimate_never_fits_a_task_no_node_can_hold)
{
	struct fw_snapshot *s = two_racks();
	int wide = tb_job(s, "wide", 0, 1, 16, 1000, 0);
	int cpu = tb_job(s, "cpu", 0, 1, 1, 1000, 1);
	int mem = tb_job(s, "mem", 0, 1, 1, 1000, 2);
	int fits = tb_job(s, "fits", 0, 1, 8, 1000, 3);
	int r = tb_job(s, "running", 0, 4, 8, 1000, 0);
	int all[] = { 0, 1, 2, 3 };
	struct fw_plan *p;
	char msg[512];

	tb_run(s, r, 4, all, 0xff);
	s->jobs[r].expected_runtime = 600;
	s->jobs[r].start_time = 0;
	s->jobs[cpu].groups[0].cpu_milli = 128001;
	s->jobs[mem].groups[0].mem_mib = (1 << 20) + 1;
	ASSERT((p = run(s, NULL)) != NULL);
	const struct fw_pending *w = fw_plan_pending_for(p, wide);
	ASSERT_EQ(w->expected_start, FW_TIME_UNKNOWN);
	ASSERT_EQ(w->unknown_why, FW_REASON_NEVER_FITS);
	ASSERT_EQ(w->why_a, 16);
	ASSERT_EQ(w->why_b, 8);
	ASSERT_EQ(fw_plan_pending_for(p, cpu)->unknown_why, FW_REASON_TASK_CPU);
	ASSERT_EQ(fw_plan_pending_for(p, cpu)->why_a, 128001);
	ASSERT_EQ(fw_plan_pending_for(p, cpu)->why_b, 128000);
	ASSERT_EQ(fw_plan_pending_for(p, mem)->unknown_why, FW_REASON_TASK_MEM);
	fw_reason_format(FW_REASON_TASK_CPU, 128001, 128000, msg, sizeof msg);
	ASSERT_STR_CONTAINS(msg, "needs 128001 CPU millicores and no usable node has more than 128000");
	ASSERT_EQ(fw_plan_pending_for(p, fits)->expected_start, 600); /* the control */
	fw_snapshot_free(s);
}

/* A job no node can ever host, although each need alone fits somewhere:
 * a0 has the CPU but not the memory, b0 the memory but not the CPU, and
 * a gang whose tasks must share one node that is too small for both.
 * With nothing running the cluster is as empty as it gets, so the
 * estimate says never, not "held by jobs with no expected runtime"
 * (nothing is), for a job of GPUs and one of none alike. */
TEST(estimate_never_fits_a_job_no_node_can_ever_host)
{
	struct fw_snapshot *s = two_racks();
	int cpu_only = tb_job(s, "cpu_only", 0, 1, 0, 1000, 0);
	int gpu = tb_job(s, "gpu", 0, 1, 1, 1000, 1);
	int pair = tb_job(s, "pair", 0, 2, 0, 1000, 2);
	int idle = tb_job(s, "idle", 0, 1, 0, 1000, 3);
	struct fw_plan *p;
	char msg[512];

	s->nodes[0].cpu_milli = 256000;
	s->nodes[2].mem_mib = 4 << 20;
	for (int j = cpu_only; j <= gpu; j++) {
		s->jobs[j].groups[0].cpu_milli = 200000;
		s->jobs[j].groups[0].mem_mib = 2 << 20;
	}
	s->jobs[pair].groups[0].cpu_milli = 150000; /* 300 cores: a0 has 256 */
	s->jobs[pair].required_level = FW_LEVEL_NODE;
	s->jobs[idle].groups[0].cpu_milli = 1000;
	s->jobs[idle].expected_runtime = 60;
	ASSERT((p = run(s, NULL)) != NULL);
	ASSERT(start_of(p, idle) != NULL); /* the control: it starts now */
	for (int j = cpu_only; j <= gpu; j++) {
		const struct fw_pending *r = fw_plan_pending_for(p, j);
		ASSERT_EQ(r->expected_start, FW_TIME_UNKNOWN);
		ASSERT_EQ(r->unknown_why, FW_REASON_TASK_MEM);
		ASSERT_EQ(r->why_a, 2 << 20);
		ASSERT_EQ(r->why_b, 1 << 20); /* a0: the only node with the CPU */
	}
	fw_reason_format(FW_REASON_TASK_MEM, 2 << 20, 1 << 20, msg, sizeof msg);
	ASSERT_STR_CONTAINS(msg, "needs 2097152 MiB of memory and no usable node");
	ASSERT_EQ(fw_plan_pending_for(p, pair)->unknown_why, FW_REASON_NEVER_FITS);
	ASSERT_EQ(fw_plan_pending_for(p, pair)->why_a, 0);
	ASSERT_EQ(fw_plan_pending_for(p, pair)->why_b, 8); /* one node: at most 8 GPUs */
	for (int n = 0; n < 4; n++)
		s->nodes[n].schedulable = false;
	ASSERT((p = run(s, NULL)) != NULL);
	/* every node cordoned: a cordon can be lifted, so it waits for them */
	ASSERT_EQ(fw_plan_pending_for(p, idle)->unknown_why, FW_REASON_NODES_OUT);
	ASSERT_EQ(fw_plan_pending_for(p, idle)->why_a, 4);
	ASSERT_EQ(fw_plan_pending_for(p, idle)->why_b, 4);
	s->jobs[idle].groups[0].cpu_milli = 0; /* asks nothing: still waits for them */
	ASSERT((p = run(s, NULL)) != NULL);
	ASSERT_EQ(fw_plan_pending_for(p, idle)->unknown_why, FW_REASON_NODES_OUT);
	s->jobs[idle].groups[0].cpu_milli = 1000000; /* more than any node, cordons lifted or not: never */
	ASSERT((p = run(s, NULL)) != NULL);
	ASSERT_EQ(fw_plan_pending_for(p, idle)->unknown_why, FW_REASON_TASK_CPU);
	fw_snapshot_free(s);
}

/* The pending reason of a job whose first task finds no node with its
 * GPUs free and its CPU, memory or GPU model: it names what is short, in
 * that resource's unit, with the most a node with free GPUs has. */
static const char *pending_text(const struct fw_plan *p, int j, char *buf, size_t n)
{
	const struct fw_pending *r = fw_plan_pending_for(p, j);
	char words[512];

	fw_reason_format(r->reason, r->a, r->b, words, sizeof words);
	snprintf(buf, n, "%s: %s", fw_reason_name(r->reason), words);
	return buf;
}

TEST(no_resources_says_what_the_first_task_lacks)
{
	struct fw_snapshot *s = two_racks();
	int hog = tb_job(s, "hog", 0, 4, 2, 1000, 0);
	int mem = tb_job(s, "mem", 0, 1, 1, 1000, 1);
	int cpu = tb_job(s, "cpu", 0, 1, 1, 1000, 2);
	int all[] = { 0, 1, 2, 3 };
	struct fw_plan *p;
	char msg[600];

	s->jobs[hog].groups[0].cpu_milli = 120000;       /* 8000 left per node */
	s->jobs[hog].groups[0].mem_mib = (1 << 20) - 1000; /* 1000 MiB left */
	tb_run(s, hog, 4, all, 0x3);
	s->jobs[mem].groups[0].mem_mib = 4096;
	s->jobs[cpu].groups[0].cpu_milli = 16000;
	s->jobs[cpu].groups[0].mem_mib = 500;
	ASSERT((p = run(s, NULL)) != NULL);
	ASSERT_STR_EQ(pending_text(p, mem, msg, sizeof msg),
		      "no_mem: no node with free GPUs has the memory for its first task: it needs 4096 MiB and such a "
		      "node has at most 1000 MiB free");
	ASSERT_STR_EQ(pending_text(p, cpu, msg, sizeof msg),
		      "no_cpu: no node with free GPUs has the CPU for its first task: it needs 16000 CPU millicores and "
		      "such a node has at most 8000 free");
	fw_snapshot_free(s);
}

/* Enough GPUs of the model in the cluster, but not on one node; and a
 * gang whose first task fits on one node only. */
/* Nodes a0, a1 (any GPUs) and b0, b1 (B200s), 8 GPUs each; one queue. */
static struct fw_snapshot *two_b200(int *a1, int *b0, int *b1)
{
	struct fw_snapshot *s = fw_snapshot_new();

	tb_node(s, "a0", 8, NULL, NULL, NULL, NULL);
	*a1 = tb_node(s, "a1", 8, NULL, NULL, NULL, NULL);
	*b0 = tb_node(s, "b0", 8, "B200", NULL, NULL, NULL);
	*b1 = tb_node(s, "b1", 8, "B200", NULL, NULL, NULL);
	tb_queue(s, "q", -1, 32, -1, 1);
	return s;
}

TEST(no_resources_says_the_model_or_the_tasks_together)
{
	int b0, b1, a1;
	struct fw_snapshot *s = two_b200(&a1, &b0, &b1);

	int busy = tb_job(s, "busy", 0, 2, 6, 1000, 0);
	int model = tb_job(s, "model", 0, 1, 4, 1000, 1);
	int fat = tb_job(s, "fat", 0, 2, 1, 1000, 2);
	int hog = tb_job(s, "hog", 0, 1, 1, 1000, 0);
	int exact = tb_job(s, "exact", 0, 1, 2, 1000, 3); /* 2 B200s: room on both, no memory */
	int bs[] = { b0, b1 }, as[] = { a1 };
	struct fw_plan *p;
	char msg[600];

	snprintf(s->jobs[busy].groups[0].gpu_model, FW_NAME_MAX, "B200");
	snprintf(s->jobs[model].groups[0].gpu_model, FW_NAME_MAX, "B200");
	snprintf(s->jobs[exact].groups[0].gpu_model, FW_NAME_MAX, "B200");
	s->jobs[exact].groups[0].mem_mib = 1;
	tb_run(s, busy, 2, bs, 0x3f); /* 2 B200s free on each */
	s->jobs[hog].groups[0].mem_mib = 1 << 20;
	tb_run(s, hog, 1, as, 0x1);   /* a1: GPUs free, no memory */
	s->jobs[busy].groups[0].mem_mib = 1 << 20; /* b0, b1: the same */
	s->jobs[fat].groups[0].mem_mib = 600000;   /* one fits a0, not two */
	ASSERT((p = run(s, NULL)) != NULL);
	ASSERT_STR_EQ(pending_text(p, model, msg, sizeof msg),
		      "no_model: no node of the GPU model its first task asks for has the free GPUs for it: it needs 4 "
		      "on one node and such a node has at most 2 free");
	ASSERT_STR_EQ(pending_text(p, fat, msg, sizeof msg),
		      "no_resources: no set of nodes with free GPUs has the CPU, memory and GPU model for all its tasks "
		      "at once (2 tasks; 1 node could hold the first alone)");
	/* a node of the model with exactly the GPUs it needs is room for
	 * them: what it lacks there is memory */
	ASSERT_EQ(fw_plan_pending_for(p, exact)->reason, FW_REASON_NO_MEM);
	fw_snapshot_free(s);
}

/* A gang of one GPU model packs several tasks on a node of it: the
 * model's room is counted in tasks, not in nodes. */
TEST(a_model_gang_packs_tasks_on_one_node_of_the_model)
{
	struct fw_snapshot *s = fw_snapshot_new();
	int b0;

	tb_node(s, "a0", 8, NULL, NULL, NULL, NULL);
	b0 = tb_node(s, "b0", 8, "B200", NULL, NULL, NULL);
	tb_queue(s, "q", -1, 16, -1, 1);
	int gang = tb_job(s, "gang", 0, 4, 2, 1000, 0);
	struct fw_plan *p;

	snprintf(s->jobs[gang].groups[0].gpu_model, FW_NAME_MAX, "B200");
	ASSERT((p = run(s, NULL)) != NULL);
	ASSERT(start_of(p, gang) != NULL);
	for (int k = 0; k < 4; k++)
		ASSERT_EQ(node_of(p, gang, k), b0);
	fw_snapshot_free(s);
}

/* The most a node of the model has free, as the nodes are when the job is
 * tried: after this cycle's earlier starts, not as the cycle began. */
TEST(no_model_counts_this_cycles_starts)
{
	int b0, b1, a1, j[3]; /* busy, first, model: 6, 5 and 4 B200s */
	struct fw_snapshot *s = two_b200(&a1, &b0, &b1);
	struct fw_plan *p;
	char msg[600];

	for (int k = 0; k < 3; k++) {
		static const char *const name[] = { "busy", "first", "model" };
		j[k] = tb_job(s, name[k], 0, 1, 6 - k, 1000, k);
		snprintf(s->jobs[j[k]].groups[0].gpu_model, FW_NAME_MAX, "B200");
	}
	int first = j[1], model = j[2];
	tb_run(s, j[0], 1, &b1, 0x3f); /* b1: 2 free; b0: 8 free, until first takes 5 */
	ASSERT((p = run(s, NULL)) != NULL);
	ASSERT_EQ(node_of(p, first, 0), b0);
	ASSERT_STR_EQ(pending_text(p, model, msg, sizeof msg),
		      "no_model: no node of the GPU model its first task asks for has the free GPUs for it: it needs 4 "
		      "on one node and such a node has at most 3 free");
	fw_snapshot_free(s);
}

TEST(estimates_are_deterministic_and_mostly_known_on_random_snapshots)
{
	int known = 0, unknown = 0, sooner = 0;
	for (uint32_t seed = 1; seed <= 90; seed++) {
		struct fw_snapshot *s = random_snapshot(1 + (seed - 1) / 3);
		/* the same snapshots with the oldest gangs starving, and with
		 * every gang of 8-GPU tasks (the starving gangs' profile then
		 * counts free 8-GPU slots) */
		if (seed % 3 != 1)
			s->config.starve_after_s = 4960;
		for (int32_t j = 0; seed % 3 == 0 && j < s->njobs; j++)
			if (fw_job_tasks(&s->jobs[j]) > 1)
				s->jobs[j].groups[0].gpus = 8;
		struct fw_plan *p = run(s, NULL), *q = NULL;
		struct fw_arena b;
		ASSERT(p != NULL); /* run() checks every estimate */
		fw_arena_init(&b, 4096);
		ASSERT_OK(fw_cycle_run(s, NULL, &b, &q));
		ASSERT_EQ(p->npending, q->npending);
		for (int i = 0; i < p->npending; i++) {
			ASSERT_EQ(p->pending[i].expected_start, q->pending[i].expected_start);
			ASSERT_EQ(p->pending[i].unknown_why, q->pending[i].unknown_why);
			ASSERT_EQ(p->pending[i].ahead, q->pending[i].ahead);
		}
		fw_arena_release(&b);
		for (int i = 0; i < p->npending; i++) {
			const struct fw_pending *r = &p->pending[i];
			known += r->expected_start != FW_TIME_UNKNOWN;
			unknown += r->expected_start == FW_TIME_UNKNOWN;
			sooner += r->reason == FW_REASON_HAS_RESERVATION && r->expected_start < r->a;
		}
		fw_snapshot_free(s);
	}
	ASSERT(known > 300);
	ASSERT(unknown > 30);
	ASSERT(sooner > 0); /* reserved gangs expected before their reservation */
}

TEST(checker_catches_a_bad_estimate)
{
	struct fw_snapshot *s = backfill_case();
	struct fw_plan *p;
	struct fw_pending *big, *lng;
	struct fw_diag d;
	s->config.reserve_depth = 1; /* long waits unreserved, behind big */
	p = run(s, "fairway");
	ASSERT(p != NULL);
	big = (struct fw_pending *)fw_plan_pending_for(p, 2);
	lng = (struct fw_pending *)fw_plan_pending_for(p, 4);
	big->expected_start = 2001;
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "its reservation is at t=2000");
	big->expected_start = 1999; /* a gang may be expected sooner (plan.h) */
	ASSERT_OK(fw_plan_check(s, p, &A, &d));
	big->expected_start = 2000;
	lng->expected_start = 999;
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "not after now");
	lng->expected_start = 1000; /* now: this plan does not start it */
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "job long is expected to start at t=1000, not after now (1000)");
	lng->expected_start = FW_TIME_UNKNOWN;
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "unknown without a reason");
	lng->unknown_why = FW_REASON_UNKNOWN_RUNTIME;
	ASSERT_OK(fw_plan_check(s, p, &A, &d));
	/* a single-task job is never expected before its reservation */
	s->jobs[2].groups[0].count = 1;
	p = run(s, "fairway");
	ASSERT(p != NULL && reservation_of(p, 2) != NULL);
	big = (struct fw_pending *)fw_plan_pending_for(p, 2);
	ASSERT_EQ(big->expected_start, reservation_of(p, 2)->at);
	big->expected_start--;
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "but its reservation is at");
	fw_snapshot_free(s);
}

TEST(slurm_priority_favours_age_fair_share_and_size)
{
	struct fw_snapshot *s = fw_snapshot_new();
	tb_node(s, "n0", 8, NULL, NULL, NULL, NULL);
	int heavy = tb_queue(s, "heavy", -1, 4, -1, 1), light = tb_queue(s, "light", -1, 4, -1, 1);
	s->queues[heavy].usage = 3600.0 * 100;
	s->now = 100000;
	tb_job(s, "heavy-old", heavy, 1, 8, 1000, 0);
	tb_job(s, "light-new", light, 1, 8, 1000, 99000);
	struct fw_plan *p = run(s, "slurm");
	ASSERT(p != NULL);
	ASSERT_EQ(p->decisions[0].job, 1); /* fair share outweighs age */
	s->queues[heavy].usage = 0;
	p = run(s, "slurm");
	ASSERT(p != NULL);
	ASSERT_EQ(p->decisions[0].job, 0); /* equal fair share: the older wins */
	fw_snapshot_free(s);
}

TEST(estimates_can_be_switched_off)
{
	struct fw_snapshot *s = backfill_case();
	s->config.estimate_starts = false;
	s->config.reserve_depth = 1; /* long waits unreserved, behind big */
	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL);
	/* decisions do not depend on estimates */
	ASSERT(reservation_of(p, 2) != NULL);
	ASSERT(start_of(p, 3) != NULL);
	ASSERT_EQ(fw_plan_pending_for(p, 2)->expected_start, 2000);
	ASSERT_EQ(fw_plan_pending_for(p, 4)->expected_start, FW_TIME_UNKNOWN);
	ASSERT_EQ(fw_plan_pending_for(p, 4)->unknown_why, FW_REASON_NOT_ESTIMATED);
	fw_snapshot_free(s);
}

/* ---- reclaim and preemption (lib/preempt.c) ---- */

static struct fw_plan *run_pol(const struct fw_snapshot *s, const struct fw_policy_ops *pol)
{
	struct fw_plan *p = NULL;
	struct fw_diag d;

	fw_arena_reset(&A);
	if (fw_cycle_run(s, pol, &A, &p) != FW_OK)
		return NULL;
	if (fw_plan_check(s, p, &A, &d) != FW_OK) {
		fprintf(stderr, "invariant: %s: %s\n", d.field, d.msg);
		return NULL;
	}
	return p;
}

static int count_kind(const struct fw_plan *p, enum fw_decision_kind k)
{
	int n = 0;
	for (int i = 0; i < p->ndecisions; i++)
		n += p->decisions[i].kind == k;
	return n;
}

/* The budget counts starts (docs/config.md: "most jobs started per
 * cycle"), not decisions: a reservation made on the way, or the EVICTs
 * of a reclaim, take none of it. */
TEST(max_starts_budget_counts_starts_not_reservations)
{
	struct fw_snapshot *s = two_racks();
	int r = tb_job(s, "running", 0, 3, 8, 1000, 0);
	int n3[] = { 0, 1, 2 };
	tb_run(s, r, 3, n3, 0xff);
	s->jobs[r].expected_runtime = 1000;
	int g = tb_job(s, "gang", 0, 2, 8, 1000, 1);
	s->jobs[g].expected_runtime = 100;
	for (int i = 0; i < 3; i++) {
		char n[8];
		snprintf(n, sizeof n, "s%d", i);
		int j = tb_job(s, n, 0, 1, 1, 1000, 2 + i);
		s->jobs[j].expected_runtime = 10;
	}
	s->config.max_starts = 2;
	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_RESERVE), 1);
	ASSERT_EQ(count_kind(p, FW_DECIDE_START), 2);
	ASSERT_EQ(fw_plan_pending_for(p, 4)->reason, FW_REASON_CYCLE_LIMIT);
	fw_snapshot_free(s);
}

static const struct fw_decision *evict_of(const struct fw_plan *p, int job)
{
	for (int i = 0; i < p->ndecisions; i++)
		if (p->decisions[i].kind == FW_DECIDE_EVICT && p->decisions[i].job == job)
			return &p->decisions[i];
	return NULL;
}

/* 2 nodes x 8 GPUs; queue A (deserved 8) runs four preemptible 4-GPU
 * jobs started at t=0,100,200,300 (a0,a1 on n0; a2,a3 on n1); queue B
 * (deserved 8) has nothing running.  now = 1000. */
static struct fw_snapshot *reclaim_case(int *a)
{
	struct fw_snapshot *s = fw_snapshot_new();
	tb_node(s, "n0", 8, NULL, NULL, NULL, NULL);
	tb_node(s, "n1", 8, NULL, NULL, NULL, NULL);
	tb_queue(s, "A", -1, 8, -1, 1);
	tb_queue(s, "B", -1, 8, -1, 1);
	s->now = 1000;
	for (int i = 0; i < 4; i++) {
		char n[8];
		int node = i / 2;
		snprintf(n, sizeof n, "a%d", i);
		a[i] = tb_job(s, n, 0, 1, 4, 1000, 0);
		tb_run(s, a[i], 1, &node, i % 2 ? 0xf0 : 0x0f);
		s->jobs[a[i]].start_time = 100 * i;
		s->jobs[a[i]].preemptible = true;
	}
	return s;
}

/* Queues at the same share ratio go by priority, then index (docs/
 * policies.md, kai): one free GPU, A and B both at 0 of 1, B of the
 * higher priority: B's job starts, though A's was submitted first. */
TEST(queues_tied_on_share_go_by_priority)
{
	const char *pols[] = { "fairway", "kai" };
	for (int k = 0; k < 2; k++) {
		for (int prio = 0; prio <= 5; prio += 5) {
			struct fw_snapshot *s = fw_snapshot_new();
			tb_node(s, "n0", 1, NULL, NULL, NULL, NULL);
			tb_queue(s, "A", -1, 1, -1, 1);
			tb_queue(s, "B", -1, 1, -1, 1);
			s->queues[1].priority = prio;
			int a = tb_job(s, "a", 0, 1, 1, 1000, 0), b = tb_job(s, "b", 1, 1, 1, 1000, 10);
			struct fw_plan *p = run(s, pols[k]);
			ASSERT(p != NULL);
			ASSERT_EQ(count_kind(p, FW_DECIDE_START), 1);
			ASSERT(start_of(p, prio ? b : a) != NULL); /* equal priority: the lower index */
			fw_snapshot_free(s);
		}
	}
}

/* An elastic gang reclaims as soon as its minimum fits: B's 2 x 4-GPU
 * job with minMember 1 starts with one task on the GPUs of one evicted
 * A job; it does not wait to gather room for both. */
TEST(reclaim_starts_an_elastic_gang_at_its_minimum)
{
	int a[4];
	struct fw_snapshot *s = reclaim_case(a);
	int b = tb_job(s, "b", 1, 2, 4, 1000, 500);
	s->jobs[b].min_member = 1;
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	const struct fw_decision *d = start_of(p, b);
	ASSERT(d != NULL);
	ASSERT_EQ(d->kind, FW_DECIDE_START);
	ASSERT_EQ(d->alloc_count, 1);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 1);
	fw_snapshot_free(s);
}

/* The start budget holds in the reclaim phase too: B (0 of its 8) has two
 * 4-GPU jobs; unbounded, both start, each on an A job's GPUs; with one
 * start per cycle, one does, and only one A job is evicted. */
TEST(reclaim_stops_at_the_start_budget)
{
	for (int budget = 0; budget <= 1; budget++) {
		int a[4];
		struct fw_snapshot *s = reclaim_case(a);
		int b1 = tb_job(s, "b1", 1, 1, 4, 1000, 500), b2 = tb_job(s, "b2", 1, 1, 4, 1000, 501);
		s->config.max_starts = budget;
		struct fw_plan *p = run(s, NULL);
		ASSERT(p != NULL);
		ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), budget ? 1 : 2);
		ASSERT_EQ(count_kind(p, FW_DECIDE_START), budget ? 1 : 2);
		ASSERT(start_of(p, b1) != NULL);
		ASSERT((start_of(p, b2) != NULL) == !budget);
		fw_snapshot_free(s);
	}
}

/* A waiting job is never expected at now: this plan does not start it.
 * A running job due to end now ends "now" in the estimate walk, where w
 * (tried, no room) then fits; its estimate is the next second,
 * under a policy that reserves (the reservation at now) and one that
 * does not.  It read "now" before, as did thousands of jobs on a full
 * fleet each cycle (evicted victims' room that their preemptors left). */
TEST(no_waiting_job_is_expected_at_now)
{
	const char *pols[] = { "fifo", "fairway", "kai" };
	for (int k = 0; k < 3; k++) {
		struct fw_snapshot *s = fw_snapshot_new();
		int n0 = 0;
		tb_node(s, "n0", 8, NULL, NULL, NULL, NULL);
		tb_queue(s, "q", -1, 8, -1, 1);
		s->now = 1000;
		int r = tb_job(s, "late", 0, 1, 8, 1000, 0), w = tb_job(s, "w", 0, 1, 8, 1000, 500);
		tb_run(s, r, 1, &n0, 0xff);
		s->jobs[r].expected_runtime = 1000; /* due at t=1000: now */
		s->jobs[r].preemptible = false;
		s->jobs[w].expected_runtime = 100;
		struct fw_plan *p = run(s, pols[k]);
		ASSERT(p != NULL); /* fw_plan_check: no pending estimate <= now */
		ASSERT(decision(p, w, FW_DECIDE_START) == NULL); /* fairway reserves it at now */
		ASSERT(fw_plan_pending_for(p, w) != NULL);
		ASSERT_EQ(fw_plan_pending_for(p, w)->expected_start, s->now + 1);
		/* overdue (due at t=100): it runs as long again, 1000 s more */
		s->jobs[r].expected_runtime = 100;
		p = run(s, pols[k]);
		ASSERT(p != NULL);
		ASSERT_EQ(fw_plan_pending_for(p, w)->expected_start, 2000);
		fw_snapshot_free(s);
	}
}

/* A fractional job is no gang, and whole free GPUs do not bound it: on a
 * node whose one GPU is half taken, a 0.75-GPU job waits, and its reason
 * is not gang_no_fit ("needs 1 GPU all at once, the cluster had 0 free"),
 * whether or not another node has a whole GPU free at the cycle's start
 * (it flipped between the two before). */
TEST(a_fractional_job_is_not_told_gang_no_fit)
{
	for (int whole = 0; whole <= 1; whole++) {
		struct fw_snapshot *s = fw_snapshot_new();
		int n0 = 0;
		tb_node(s, "n0", 1, NULL, NULL, NULL, NULL);
		if (whole)
			tb_node(s, "n1", 1, "A100", NULL, NULL, NULL);
		tb_queue(s, "q", -1, 2, -1, 1);
		int h = tb_job(s, "half", 0, 1, 1, 500, 0), f = tb_job(s, "f", 0, 1, 1, 750, 10);
		tb_run(s, h, 1, &n0, 0x1);
		if (whole)
			tb_named(s, f, "H100");
		struct fw_plan *p = run(s, NULL);
		ASSERT(p != NULL);
		ASSERT(decision(p, f, FW_DECIDE_START) == NULL);
		ASSERT(fw_plan_pending_for(p, f)->reason != FW_REASON_GANG_NO_FIT);
		fw_snapshot_free(s);
	}
}

/* Reclaim for a job with group filters.  B's het job of 4 + 4 GPUs,
 * apart, needs 4 GPUs freed on each node, and a1 (n0) then a3 (n1) hold
 * the least work.  Whether its group 0 may use n0 only and group 1 any
 * node (case 0), or group 0 n1 only and group 1 n0 only (case 1), reclaim
 * counts the victims on every node some group may use: it evicts those
 * two and the job starts, each group on its node (with no victim counted
 * on the free group's node, A would fall below its share first).  Case
 * 2: B's one-task job whose one group may use n0 only passes a3 (the least
 * work, on n1: it would free nothing the job may use, and take A to its
 * share) and evicts a1, as for a job filter. */
TEST(reclaim_for_group_filters_evicts_where_some_group_may_go)
{
	for (int c = 0; c <= 2; c++) {
		int a[4];
		int32_t n0[] = { 0 }, n1[] = { 1 };
		struct fw_snapshot *s = reclaim_case(a);
		int b = tb_job(s, "b", 1, 1, 4, 1000, 500);
		struct fw_job *j = &s->jobs[b];
		if (c < 2) {
			s->jobs[a[1]].start_time = 350; /* the least work: a1 (n0), then a3 (n1) */
			j->groups[1] = j->groups[0];
			j->groups[0].apart = j->groups[1].apart = true;
			j->ngroups = 2;
		}
		ASSERT(fw_snapshot_restrict_group(s, b, 0, c == 1 ? n1 : n0, 1, 0) >= 0);
		if (c == 1)
			ASSERT(fw_snapshot_restrict_group(s, b, 1, n0, 1, 0) >= 0);
		struct fw_plan *p = run(s, NULL);
		ASSERT(p != NULL);
		ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), c < 2 ? 2 : 1);
		ASSERT(decision(p, a[1], FW_DECIDE_EVICT) != NULL);
		ASSERT((decision(p, a[3], FW_DECIDE_EVICT) != NULL) == (c < 2));
		ASSERT_EQ(group_node(p, decision(p, b, FW_DECIDE_START), 0), c == 1 ? 1 : 0);
		if (c < 2)
			ASSERT_EQ(group_node(p, decision(p, b, FW_DECIDE_START), 1), c == 1 ? 0 : 1);
		fw_snapshot_free(s);
	}
}

/* Reclaim for a filtered job evicts on its nodes: B's job may start on n0
 * only, so the victim is a1 (least work there), not a3 (least overall,
 * on n1), which an unfiltered job takes. */
TEST(reclaim_for_a_filtered_job_evicts_on_its_nodes)
{
	for (int filtered = 0; filtered <= 1; filtered++) {
		int a[4], n0[] = { 0 };
		struct fw_snapshot *s = reclaim_case(a);
		int b = tb_job(s, "b", 1, 1, 4, 1000, 500);
		if (filtered)
			ASSERT(fw_snapshot_restrict_job(s, b, n0, 1) >= 0);
		struct fw_plan *p = run(s, NULL);
		ASSERT(p != NULL);
		ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 1);
		ASSERT(decision(p, filtered ? a[1] : a[3], FW_DECIDE_EVICT) != NULL);
		ASSERT_EQ(node_of(p, b, 0), filtered ? 0 : 1);
		fw_snapshot_free(s);
	}
}

TEST(reclaim_frees_a_queue_above_fair_share_for_a_starving_queue)
{
	int a[4];
	struct fw_snapshot *s = reclaim_case(a);
	int b = tb_job(s, "b", 1, 1, 4, 1000, 500);
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(p->ndecisions, 2);
	ASSERT_EQ(p->decisions[0].kind, FW_DECIDE_EVICT);
	ASSERT_EQ(p->decisions[0].reason, FW_REASON_RECLAIMED);
	ASSERT_EQ(p->decisions[0].a, b);
	ASSERT_EQ(p->decisions[0].b, 1);
	ASSERT_EQ(p->decisions[1].kind, FW_DECIDE_START);
	ASSERT_EQ(p->decisions[1].job, b);
	ASSERT(fw_plan_pending_for(p, b) == NULL);
	/* A keeps 12 GPUs, its fair share (B's demand is 4) */
	ASSERT_EQ(p->queues[0].allocated.v[FW_RES_GPU], 12000);
	ASSERT_EQ(p->queues[1].allocated.v[FW_RES_GPU], 4000);
	/* fifo and slurm never evict */
	ASSERT_EQ(count_kind(run(s, "fifo"), FW_DECIDE_EVICT), 0);
	ASSERT_EQ(count_kind(run(s, "slurm"), FW_DECIDE_EVICT), 0);
	fw_snapshot_free(s);
}

/* Reclaim frees capacity after allocate: b (4 GPUs) evicts an 8-GPU job
 * of A (A keeps its fair share of 8: B also asks 8 B200 GPUs no node has)
 * and leaves 4 GPUs free, where x (2 GPUs, of A: it may not reclaim) fits
 * from the next cycle: this plan does not start it there.  x failed in
 * allocate, when nothing was free, but its estimate is the next second,
 * not b's end (1600): the walk must not take "a job of its shape failed
 * at now this cycle" for "it does not fit at now" once reclaim has
 * evicted, nor say "now" of a job the plan does not start. */
TEST(estimate_sees_the_room_reclaim_left_at_now)
{
	const char *pols[] = { "fairway", "kai" };

	for (int k = 0; k < 2; k++) {
		struct fw_snapshot *s = fw_snapshot_new();
		struct fw_plan *p;
		tb_node(s, "n0", 8, NULL, NULL, NULL, NULL);
		tb_node(s, "n1", 8, NULL, NULL, NULL, NULL);
		tb_queue(s, "A", -1, 8, -1, 1);
		tb_queue(s, "B", -1, 8, -1, 1);
		s->now = 1000;
		for (int i = 0; i < 2; i++) {
			int a = tb_job(s, i ? "a1" : "a0", 0, 1, 8, 1000, 0);
			tb_run(s, a, 1, &i, 0xff);
			s->jobs[a].start_time = 100 * i;
			s->jobs[a].preemptible = true;
		}
		int x = tb_job(s, "x", 0, 1, 2, 1000, 400);
		int b = tb_job(s, "b", 1, 1, 4, 1000, 500);
		int q = tb_job(s, "q", 1, 1, 8, 1000, 600);
		snprintf(s->jobs[q].groups[0].gpu_model, sizeof s->jobs[q].groups[0].gpu_model, "B200");
		s->jobs[x].expected_runtime = s->jobs[b].expected_runtime = 600;
		ASSERT((p = run(s, pols[k])) != NULL);
		ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 1);
		ASSERT(start_of(p, b) != NULL);
		ASSERT_EQ(fw_plan_pending_for(p, x)->expected_start, 1001);
		fw_snapshot_free(s);
	}
}

TEST(reclaim_prefers_the_victim_with_the_least_work_since_start)
{
	int a[4];
	struct fw_snapshot *s = reclaim_case(a);
	tb_job(s, "b", 1, 1, 4, 1000, 500);
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(p->decisions[0].job, a[3]); /* started last: least work lost */
	s->jobs[a[3]].start_time = 0;
	s->jobs[a[0]].start_time = 300;
	p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(p->decisions[0].job, a[0]);
	fw_snapshot_free(s);
}

/* With checkpoints, the work an eviction loses is the run since the last
 * one: a job that has just saved goes first, even if it started first. */
TEST(reclaim_prefers_the_victim_with_the_least_work_since_its_checkpoint)
{
	int a[4];
	struct fw_snapshot *s = reclaim_case(a);
	struct fw_diag d;
	tb_job(s, "b", 1, 1, 4, 1000, 500);
	/* ran 1000, 900, 800, 700 s; every 450 s: lost 100, 0, 350, 250 */
	for (int i = 0; i < 4; i++)
		s->jobs[a[i]].checkpoint_s = 450;
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(p->decisions[0].kind, FW_DECIDE_EVICT);
	ASSERT_EQ(p->decisions[0].job, a[1]);
	/* only a0 saves (every 500 s: lost 0); the others lose their whole run */
	for (int i = 0; i < 4; i++)
		s->jobs[a[i]].checkpoint_s = i == 0 ? 500 : 0;
	p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(p->decisions[0].job, a[0]);
	ASSERT_EQ(fw_job_lost_work(s, &s->jobs[a[3]], s->now), 700);
	/* the queue's default covers the jobs that give none (450 s: a1 loses
	 * 0), and a job's own interval wins over it (a0, 500 s: loses 0 too,
	 * a tie broken by job index) */
	s->queues[0].default_checkpoint_s = 450;
	ASSERT_EQ(fw_job_checkpoint(s, &s->jobs[a[1]]), 450);
	ASSERT_EQ(fw_job_checkpoint(s, &s->jobs[a[0]]), 500);
	ASSERT_EQ(fw_job_lost_work(s, &s->jobs[a[2]], s->now), 350);
	s->jobs[a[0]].checkpoint_s = 600; /* a0 now loses 400 */
	p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(p->decisions[0].job, a[1]);
	s->queues[0].default_checkpoint_s = 0;
	/* a negative interval is refused, naming the job or the queue */
	s->jobs[a[2]].checkpoint_s = -1;
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_ERANGE);
	ASSERT(strstr(d.msg, "a2") && strstr(d.msg, "checkpoint"));
	s->jobs[a[2]].checkpoint_s = 0;
	s->queues[0].default_checkpoint_s = -5;
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_ERANGE);
	ASSERT(strstr(d.msg, "defaultCheckpointInterval"));
	fw_snapshot_free(s);
}

/* The QA repro (tests/scenario/reclaim_idle_victim.yaml): a victim that
 * cannot make room must not use up its queue's margin.  A (deserved 4)
 * runs `old` (8 GPUs, n0) and `ck` (4 GPUs, n1, just checkpointed: the
 * cheapest); B's non-preemptible `lo` holds n1's other 4.  B's 8-GPU
 * job can start only on n0.  ck goes first in the cheapest order but
 * frees nothing it could use, and counted against A it left A no margin
 * for `old`: nothing was evicted.  Now `old` alone is, under both reclaim
 * rules. */
TEST(reclaim_skips_a_victim_that_makes_no_room)
{
	const char *pols[] = { "fairway", "kai" };
	struct fw_snapshot *s = fw_snapshot_new();
	int n0 = tb_node(s, "n0", 8, NULL, NULL, NULL, NULL), n1 = tb_node(s, "n1", 8, NULL, NULL, NULL, NULL);
	int qa = tb_queue(s, "A", -1, 4, -1, 1), qb = tb_queue(s, "B", -1, 12, -1, 1);
	int old = tb_job(s, "old", qa, 1, 8, 1000, 0), ck = tb_job(s, "ck", qa, 1, 4, 1000, 0);
	int lo = tb_job(s, "lo", qb, 1, 4, 1000, 0), want = tb_job(s, "want", qb, 1, 8, 1000, 1000);

	s->now = 300000;
	tb_run(s, old, 1, &n0, 0xff);
	tb_run(s, ck, 1, &n1, 0x0f);
	tb_run(s, lo, 1, &n1, 0xf0);
	s->jobs[old].start_time = 10;
	s->jobs[ck].start_time = 0;
	s->jobs[lo].start_time = 299990;
	s->jobs[ck].checkpoint_s = 1000; /* saved at now: loses nothing */
	s->jobs[old].preemptible = s->jobs[ck].preemptible = true;
	s->jobs[lo].priority = 1;
	s->jobs[want].priority = 5;
	for (int i = 0; i < 2; i++) {
		struct fw_plan *p = run(s, pols[i]);
		ASSERT(p != NULL);
		ASSERT_EQ(p->ndecisions, 2);
		ASSERT_EQ(p->decisions[0].kind, FW_DECIDE_EVICT);
		ASSERT_EQ(p->decisions[0].job, old);
		ASSERT_EQ(p->decisions[1].kind, FW_DECIDE_START);
		ASSERT_EQ(p->decisions[1].job, want);
		ASSERT_EQ(node_of(p, want, 0), n0);
	}
	/* with room for ck to help (lo preemptible and older than want's
	 * priority), ck and lo are the cheaper pair and old keeps running */
	s->jobs[lo].preemptible = true;
	s->jobs[lo].submit_time = 299990;
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(p->decisions[0].kind, FW_DECIDE_EVICT);
	ASSERT(p->decisions[0].job != old && p->decisions[1].job != old);
	fw_snapshot_free(s);
}

/* reclaim_case with every running job saving every 1200 s (none has yet:
 * they ran 1000, 900, 800 and 700 s) and a checkpoint grace of 600 s. */
static struct fw_snapshot *checkpoint_case(int *a)
{
	struct fw_snapshot *s = reclaim_case(a);
	for (int i = 0; i < 4; i++)
		s->jobs[a[i]].checkpoint_s = 1200;
	s->config.checkpoint_grace_s = 600;
	return s;
}

/* Preempt at a checkpoint (config checkpoint_grace_s, lib/preempt.c):
 * with every victim's next checkpoint within the grace and sooner than
 * the work it would lose, the preemptor waits for it instead. */
TEST(reclaim_waits_for_a_checkpoint_within_the_grace)
{
	int a[4];
	char buf[FW_REASON_TEXT_MAX];
	struct fw_snapshot *s = checkpoint_case(a);
	int b = tb_job(s, "b", 1, 1, 4, 1000, 500);
	/* each would lose its whole run; a3 is the cheapest, saving at 1500 */
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 0);
	ASSERT(start_of(p, b) == NULL);
	const struct fw_pending *r = fw_plan_pending_for(p, b);
	ASSERT_EQ(r->reason, FW_REASON_CHECKPOINT_WAIT);
	ASSERT_EQ(r->a, a[3]);
	ASSERT_EQ(r->b, 1500);
	ASSERT_EQ(r->expected_start, 1500); /* the victims have no runtime */
	ASSERT_EQ(r->unknown_why, FW_REASON_NONE);
	fw_reason_format_job(s, b, r->reason, r->a, r->b, buf, sizeof buf);
	ASSERT(strstr(buf, "job a3, which saves a checkpoint at t=1500"));
	/* off, or a grace shorter than the 500 s to that checkpoint: at once */
	for (int64_t g = 0; g <= 499; g += 499) {
		s->config.checkpoint_grace_s = g;
		ASSERT((p = run(s, NULL)) != NULL);
		ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 1);
		ASSERT_EQ(p->decisions[0].job, a[3]);
		ASSERT(start_of(p, b) != NULL);
	}
	s->config.checkpoint_grace_s = 500; /* exactly the wait: it waits */
	ASSERT((p = run(s, NULL)) != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 0);
	/* a wait as long as the work it saves is not worth it: a3 saves every
	 * 1400 s, 700 s from now, having run 700 s */
	s->config.checkpoint_grace_s = 1000;
	s->jobs[a[3]].checkpoint_s = 1400;
	ASSERT((p = run(s, NULL)) != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 1);
	ASSERT_EQ(p->decisions[0].job, a[3]);
	/* a victim without checkpoints loses its run whenever it goes */
	s->jobs[a[3]].checkpoint_s = 0;
	ASSERT((p = run(s, NULL)) != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 1);
	/* once it has saved (t=1550: 50 s since, the next 1150 s away) the
	 * same victim goes at once */
	s->jobs[a[3]].checkpoint_s = 1200;
	s->config.checkpoint_grace_s = 600;
	s->now = 1550;
	ASSERT((p = run(s, NULL)) != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 1);
	ASSERT_EQ(p->decisions[0].job, a[3]);
	ASSERT(start_of(p, b) != NULL);
	fw_snapshot_free(s);
}

/* Two preemptors wait for two victims, one each; a gang waits for the
 * last of its victims' checkpoints, and evicts at once if one of them
 * saves beyond the grace. */
TEST(preemptors_wait_for_checkpoints_each_its_own_victims)
{
	int a[4];
	struct fw_snapshot *s = checkpoint_case(a);
	int b1 = tb_job(s, "b1", 1, 1, 4, 1000, 500), b2 = tb_job(s, "b2", 1, 1, 4, 1000, 501);
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 0);
	const struct fw_pending *r1 = fw_plan_pending_for(p, b1), *r2 = fw_plan_pending_for(p, b2);
	ASSERT_EQ(r1->reason, FW_REASON_CHECKPOINT_WAIT);
	ASSERT_EQ(r2->reason, FW_REASON_CHECKPOINT_WAIT);
	ASSERT_EQ(r1->a, a[3]);
	ASSERT_EQ(r1->b, 1500);
	ASSERT_EQ(r2->a, a[2]); /* a3 is b1's: the next cheapest, saving at 1400 */
	ASSERT_EQ(r2->b, 1400);
	fw_snapshot_free(s);

	/* an 8-GPU gang needs a node: a2 and a3 (n1), saving at 1400 and 1500 */
	s = checkpoint_case(a);
	int g = tb_job(s, "g", 1, 1, 8, 1000, 500);
	ASSERT((p = run(s, NULL)) != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 0);
	ASSERT_EQ(fw_plan_pending_for(p, g)->reason, FW_REASON_CHECKPOINT_WAIT);
	ASSERT_EQ(fw_plan_pending_for(p, g)->a, a[3]);
	ASSERT_EQ(fw_plan_pending_for(p, g)->b, 1500);
	s->jobs[a[2]].checkpoint_s = 2000; /* a2 saves in 1200 s: beyond the grace */
	ASSERT((p = run(s, NULL)) != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 2);
	ASSERT(start_of(p, g) != NULL);
	fw_snapshot_free(s);
}

/* The checker holds a checkpoint wait to its rule. */
TEST(checker_catches_a_bad_checkpoint_wait)
{
	int a[4];
	struct fw_diag d;
	struct fw_snapshot *s = checkpoint_case(a);
	int b = tb_job(s, "b", 1, 1, 4, 1000, 500);
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	struct fw_pending *r = (struct fw_pending *)fw_plan_pending_for(p, b);
	ASSERT_EQ(r->reason, FW_REASON_CHECKPOINT_WAIT);
	r->b = 1400; /* not a3's next checkpoint */
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	ASSERT(strstr(d.msg, "checkpoint at t=1400, which is not its next one"));
	s->config.utc_times = true; /* a Unix clock's texts: UTC dates */
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	ASSERT(strstr(d.msg, "checkpoint at 1970-01-01T00:23:20Z, which is not its next one"));
	s->config.utc_times = false;
	r->b = 1500;
	r->expected_start = 1600;
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	ASSERT(strstr(d.msg, "expected at t=1600"));
	r->expected_start = 1500;
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_OK);
	r->a = b; /* not a running job, though a preemptible one */
	s->jobs[b].preemptible = true;
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	s->jobs[b].preemptible = false;
	ASSERT(strstr(d.msg, "not a running evictable job"));
	r->a = a[3];
	s->jobs[a[3]].preemptible = false;
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	ASSERT(strstr(d.msg, "not a running evictable job"));
	s->jobs[a[3]].preemptible = true;
	s->config.checkpoint_grace_s = 400; /* 500 s away: beyond this grace */
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	s->config.checkpoint_grace_s = 0;
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	ASSERT(strstr(d.msg, "checkpoint_grace_s is off"));
	/* a wait as long as the victim's work since its last checkpoint:
	 * a3 saving every 1400 s, 700 s from now, having run 700 s */
	s->config.checkpoint_grace_s = 1000;
	s->jobs[a[3]].checkpoint_s = 1400;
	r->b = r->expected_start = 1700;
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	ASSERT(strstr(d.msg, "checkpoint at t=1700"));
	s->jobs[a[3]].checkpoint_s = 1300; /* 600 s from now: that is a wait */
	r->b = r->expected_start = 1600;
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_OK);
	fw_snapshot_free(s);

	/* a wait for a victim the same plan evicts */
	s = checkpoint_case(a);
	b = tb_job(s, "b", 1, 1, 4, 1000, 500);
	int c = tb_job(s, "c", 1, 1, 16, 1000, 600); /* waits: B's share is 8 */
	s->config.checkpoint_grace_s = 0; /* b evicts a3 at once */
	ASSERT((p = run(s, NULL)) != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 1);
	ASSERT_EQ(p->decisions[0].job, a[3]);
	r = (struct fw_pending *)fw_plan_pending_for(p, c);
	ASSERT(r != NULL);
	s->config.checkpoint_grace_s = 600;
	*r = (struct fw_pending){ .job = c, .reason = FW_REASON_CHECKPOINT_WAIT, .a = a[3], .b = 1500,
				  .expected_start = 1500 };
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	ASSERT(strstr(d.msg, "which this plan evicts"));
	r->a = a[2];
	r->b = r->expected_start = 1400;
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_OK);
	fw_snapshot_free(s);
}

TEST(reclaim_never_evicts_non_preemptible_jobs)
{
	int a[4];
	struct fw_snapshot *s = reclaim_case(a);
	for (int i = 0; i < 4; i++)
		s->jobs[a[i]].preemptible = false;
	int b = tb_job(s, "b", 1, 1, 4, 1000, 500);
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 0);
	ASSERT(fw_plan_pending_for(p, b) != NULL);
	s->jobs[a[1]].preemptible = true; /* only a1 may go */
	p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 1);
	ASSERT(evict_of(p, a[1]) != NULL);
	fw_snapshot_free(s);
}

/* A queue marked nonpreemptible (YAML and API `preemptible: false`)
 * shelters every running job under it, preemptible or not: A's jobs
 * stay while B waits, also when the mark is on a queue above A; without
 * the mark B reclaims one of them. */
TEST(reclaim_never_evicts_jobs_of_a_nonpreemptible_queue)
{
	int a[4];
	struct fw_snapshot *s = reclaim_case(a);
	int b = tb_job(s, "b", 1, 1, 4, 1000, 500);
	int org = tb_queue(s, "org", -1, 8, -1, 1);
	s->queues[0].parent = org; /* org > A; B beside org */
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 1);
	ASSERT(start_of(p, b) != NULL);
	s->queues[0].nonpreemptible = true;
	p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 0);
	ASSERT(start_of(p, b) == NULL);
	s->queues[0].nonpreemptible = false;
	s->queues[org].nonpreemptible = true; /* the mark above A */
	p = run(s, "kai");
	ASSERT(p != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 0);
	ASSERT(!fw_job_evictable(s, &s->jobs[a[0]]));
	s->queues[org].nonpreemptible = false;
	ASSERT(fw_job_evictable(s, &s->jobs[a[0]]));
	/* with a preemptible job elsewhere (B's own, on a third node), the
	 * reclaim phase runs, and still passes A's jobs over */
	int n2[] = { 2 };
	tb_node(s, "n2", 8, NULL, NULL, NULL, NULL);
	int br = tb_job(s, "b-run", 1, 1, 8, 1000, 0);
	tb_run(s, br, 1, n2, 0xff);
	s->jobs[br].preemptible = true;
	p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 1); /* unmarked: one of A's */
	s->queues[0].nonpreemptible = true;
	p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 0);
	fw_snapshot_free(s);
}

TEST(reclaim_honours_the_queue_min_runtime_protection)
{
	int a[4];
	char m[FW_REASON_TEXT_MAX + FW_NAME_MAX];
	struct fw_snapshot *s = reclaim_case(a);
	s->queues[0].min_runtime_s = 800; /* a3 has run 700 s, a2 800 s */
	int b = tb_job(s, "b", 1, 1, 4, 1000, 500);
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 1);
	ASSERT(evict_of(p, a[2]) != NULL);
	s->queues[0].min_runtime_s = 5000; /* every job protected */
	p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 0);
	/* b waits for the protection, not for room (lib/minrun.c): a0's
	 * ends first, at 0 + 5000, and holds b's 4 GPUs; A's jobs have no
	 * runtime, so that is also its expected start */
	const struct fw_pending *r = pending_of(p, b);
	ASSERT_EQ(r->reason, FW_REASON_MIN_RUNTIME);
	ASSERT_EQ(r->a, 0);
	ASSERT_EQ(r->b, 5000);
	ASSERT_EQ(r->expected_start, 5000);
	ASSERT_STR_EQ(fw_reason_format_job(s, b, r->reason, r->a, r->b, m, sizeof m),
		      "reclaim waits: the GPUs it needs are held by jobs of queue A, above its fair share, that have "
		      "not run its minimum runtime (minRuntime) of 1h23m20s yet; reclaim may take them at t=5000 (in "
		      "1h06m40s)");
	/* 8 GPUs: a0's and a1's, the latter's ends at 5100 */
	s->jobs[b].groups[0].gpus = 8;
	ASSERT((p = run(s, NULL)) != NULL);
	ASSERT_EQ(pending_of(p, b)->b, 5100);
	/* without reclaim, no such wait */
	ASSERT((p = run(s, "fifo")) != NULL);
	ASSERT(pending_of(p, b)->reason != FW_REASON_MIN_RUNTIME);
	fw_snapshot_free(s);
}

/* A min_runtime estimate is a time the job would be placed (lib/minrun.c
 * step 3), not only one at which enough GPUs are protected no more. */
TEST(min_runtime_estimate_checks_placement)
{
	int a[4];
	struct fw_snapshot *s = reclaim_case(a);
	s->queues[0].min_runtime_s = 5000;
	s->jobs[a[2]].start_time = 50; /* protections end: a0 5000, a2 5050, a1 5100, a3 5300 */
	int b = tb_job(s, "b", 1, 1, 8, 1000, 500);
	s->jobs[b].expected_runtime = 500;
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	/* 8 GPUs are out of protection at 5050 (a0's on n0, a2's on n1), but
	 * b's one task needs a whole node: n0's at 5100 */
	const struct fw_pending *r = pending_of(p, b);
	ASSERT_EQ(r->reason, FW_REASON_MIN_RUNTIME);
	ASSERT_EQ(r->b, 5100);
	ASSERT_EQ(r->expected_start, 5100);
	/* n0 leaves at 5080 until 9000: b's run [5100, 5600) reaches into
	 * that window, so n1, whole at 5300 */
	s->nodes[0].away_at = 5080;
	s->nodes[0].back_at = 9000;
	ASSERT((p = run(s, NULL)) != NULL);
	r = pending_of(p, b);
	ASSERT_EQ(r->reason, FW_REASON_MIN_RUNTIME);
	ASSERT_EQ(r->b, 5300);
	ASSERT_EQ(r->expected_start, 5300);
	/* n1 leaves too: no protection end lets b in, so neither the reason
	 * nor the estimate claims one (A's jobs never end: unknown) */
	s->nodes[1].away_at = 5080;
	s->nodes[1].back_at = 9000;
	ASSERT((p = run(s, NULL)) != NULL);
	r = pending_of(p, b);
	ASSERT(r->reason != FW_REASON_MIN_RUNTIME);
	ASSERT(r->expected_start == FW_TIME_UNKNOWN || r->expected_start >= 9000);
	fw_snapshot_free(s);
}

TEST(reclaim_evicts_whole_gangs)
{
	struct fw_snapshot *s = fw_snapshot_new();
	int n01[] = { 0, 1 }, n0 = 0, n1 = 1;
	tb_node(s, "n0", 8, NULL, NULL, NULL, NULL);
	tb_node(s, "n1", 8, NULL, NULL, NULL, NULL);
	tb_queue(s, "A", -1, 8, -1, 1);
	tb_queue(s, "B", -1, 8, -1, 1);
	s->now = 1000;
	int g = tb_job(s, "gang", 0, 2, 4, 1000, 0);
	tb_run(s, g, 2, n01, 0x0f);
	int x0 = tb_job(s, "x0", 0, 1, 4, 1000, 0), x1 = tb_job(s, "x1", 0, 1, 4, 1000, 0);
	tb_run(s, x0, 1, &n0, 0xf0);
	tb_run(s, x1, 1, &n1, 0xf0);
	s->jobs[g].start_time = 900;
	for (int j = 0; j < 3; j++)
		s->jobs[j].preemptible = true;
	int b = tb_job(s, "bgang", 1, 2, 4, 1000, 500);
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 1);
	ASSERT_EQ(evict_of(p, g)->alloc_count, 2); /* both tasks of the gang */
	ASSERT(start_of(p, b) != NULL);
	ASSERT_EQ(p->decisions[1].job, b);
	ASSERT_EQ(p->decisions[1].alloc_count, 2);
	fw_snapshot_free(s);
}

/* The per-domain fallback: b (B, 0 of its 8) wants 8 GPUs on one node;
 * A holds all 16 as four 4-GPU jobs and may give back 8 (two).  Work
 * lost: a0 (n0) 100, a2 (n1) 200, a1 (n0) 300, a3 (n1) 400: the two
 * cheapest sit on different nodes, and the global gather takes them,
 * uses up A's margin and makes no room.  Per node: n0 for 400, n1 for
 * 600: n0's pair is evicted and b starts there. */
TEST(reclaim_gathers_victims_per_node_when_the_global_pick_fails)
{
	int a[4];
	struct fw_snapshot *s = reclaim_case(a);
	const fw_time start[4] = { 900, 700, 800, 600 };
	s->config.reserve_depth = -1;
	for (int i = 0; i < 4; i++)
		s->jobs[a[i]].start_time = start[i];
	int b = tb_job(s, "b", 1, 1, 8, 1000, 500);
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 2);
	ASSERT_EQ(tb_find(p, a[0], FW_DECIDE_EVICT)->reason, FW_REASON_RECLAIMED);
	ASSERT_EQ(tb_find(p, a[1], FW_DECIDE_EVICT)->reason, FW_REASON_RECLAIMED);
	ASSERT(tb_find(p, b, FW_DECIDE_START) != NULL);
	ASSERT_EQ(node_of(p, b, 0), 0);
	fw_snapshot_free(s);
}

/* ... and the fallback keeps the node whose victims lose the least work
 * in all, not the one holding the cheapest victim: a0 (n0) 100 but a1
 * (n0) 900, a2 (n1) 200 and a3 (n1) 300: n1 for 500 rather than n0 for
 * 1000.  With the nodes' roles swapped the choice follows the work. */
TEST(reclaim_fallback_keeps_the_node_that_loses_the_least_work)
{
	int a[4];
	struct fw_snapshot *s = reclaim_case(a);
	const fw_time start[4] = { 900, 100, 800, 700 };
	s->config.reserve_depth = -1;
	for (int i = 0; i < 4; i++)
		s->jobs[a[i]].start_time = start[i];
	int b = tb_job(s, "b", 1, 1, 8, 1000, 500);
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 2);
	ASSERT(tb_find(p, a[2], FW_DECIDE_EVICT) != NULL);
	ASSERT(tb_find(p, a[3], FW_DECIDE_EVICT) != NULL);
	ASSERT_EQ(node_of(p, b, 0), 1);
	for (int i = 0; i < 4; i++)
		s->jobs[a[i]].start_time = start[(i + 2) % 4];
	p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 2);
	ASSERT(tb_find(p, a[0], FW_DECIDE_EVICT) != NULL);
	ASSERT(tb_find(p, a[1], FW_DECIDE_EVICT) != NULL);
	ASSERT_EQ(node_of(p, b, 0), 0);
	fw_snapshot_free(s);
}

/* A job that holds a reservation is no preemptor; where reclaim or
 * preemption could have applied, its text says they were not tried.
 * high (priority 10, 4 GPUs) and two priority-0 preemptible jobs of its
 * queue holding n0, every runtime known: high reserves, nothing is
 * evicted, and its entry says preemption was not tried.  With the
 * victims not preemptible, nothing could apply: no note. */
TEST(a_reserved_job_says_preemption_was_not_tried)
{
	struct fw_snapshot *s = fw_snapshot_new();
	char buf[FW_REASON_TEXT_MAX + FW_NAME_MAX];
	tb_node(s, "n0", 8, NULL, NULL, NULL, NULL);
	tb_queue(s, "q", -1, 8, -1, 1);
	s->now = 5000;
	int lo[2];
	for (int i = 0; i < 2; i++) {
		int n = 0;
		lo[i] = tb_job(s, i ? "low2" : "low", 0, 1, 4, 1000, 0);
		tb_run(s, lo[i], 1, &n, i ? 0xf0 : 0x0f);
		s->jobs[lo[i]].start_time = i ? 4000 : 0;
		s->jobs[lo[i]].expected_runtime = 36000;
		s->jobs[lo[i]].preemptible = true;
	}
	int high = tb_job(s, "high", 0, 1, 4, 1000, 4900);
	s->jobs[high].priority = 10;
	s->jobs[high].expected_runtime = 3600;
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 0);
	ASSERT(tb_find(p, high, FW_DECIDE_RESERVE) != NULL);
	const struct fw_pending *r = fw_plan_pending_for(p, high);
	ASSERT_EQ(r->reason, FW_REASON_HAS_RESERVATION);
	ASSERT_EQ(r->untried, FW_UNTRIED_PREEMPT);
	ASSERT(strstr(fw_pending_format(s, r, buf, sizeof buf), "; preemption not tried: it holds a reservation") !=
	       NULL);
	for (int i = 0; i < 2; i++)
		s->jobs[lo[i]].preemptible = false;
	ASSERT((p = run(s, NULL)) != NULL);
	r = fw_plan_pending_for(p, high);
	ASSERT_EQ(r->reason, FW_REASON_HAS_RESERVATION);
	ASSERT_EQ(r->untried, 0);
	ASSERT(strstr(fw_pending_format(s, r, buf, sizeof buf), "not tried") == NULL);
	fw_snapshot_free(s);
}

/* ... and reclaim: b (B, 0 of its 8) reserves behind A's four 4-GPU
 * jobs (every runtime known) rather than reclaim; its queue is below its
 * share, so its entry says reclaim was not tried.  With B's fair share
 * none (nothing deserved, no weight), no note. */
TEST(a_reserved_job_says_reclaim_was_not_tried)
{
	int a[4];
	char buf[FW_REASON_TEXT_MAX + FW_NAME_MAX];
	struct fw_snapshot *s = reclaim_case(a);
	for (int i = 0; i < 4; i++)
		s->jobs[a[i]].expected_runtime = 3600;
	int b = tb_job(s, "b", 1, 1, 8, 1000, 500);
	s->jobs[b].expected_runtime = 600;
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 0);
	const struct fw_pending *r = fw_plan_pending_for(p, b);
	ASSERT_EQ(r->reason, FW_REASON_HAS_RESERVATION);
	ASSERT_EQ(r->untried, FW_UNTRIED_RECLAIM);
	ASSERT(strstr(fw_pending_format(s, r, buf, sizeof buf), "; reclaim not tried: it holds a reservation") != NULL);
	s->queues[1].deserved.v[FW_RES_GPU] = 0; /* B's fair share: none */
	for (int k = 0; k < FW_RES_COUNT; k++)
		s->queues[1].over_quota_weight[k] = 0;
	ASSERT((p = run(s, NULL)) != NULL);
	r = fw_plan_pending_for(p, b);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 0);
	ASSERT_EQ(r->untried, 0);
	fw_snapshot_free(s);
}

TEST(reclaim_evicts_nothing_when_the_preemptor_would_not_fit_anyway)
{
	int a[4];
	struct fw_snapshot *s = reclaim_case(a);
	/* b8 needs 8 GPUs on one node.  A (fair share 8) may lose two of
	 * its 4-GPU jobs, but a0 (n0) and a2 (n1) are not preemptible: the
	 * eligible ones, a1 (n0, 650 s) and a3 (n1, 700 s), free 4 GPUs on
	 * each node, never 8 on one, globally or per node.  (Evicting them
	 * would leave b8 waiting: nothing is evicted.) */
	s->jobs[a[1]].start_time = 350;
	s->jobs[a[0]].preemptible = false;
	s->jobs[a[2]].preemptible = false;
	int b = tb_job(s, "b8", 1, 1, 8, 1000, 500);
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 0);
	ASSERT_EQ(count_kind(p, FW_DECIDE_START), 0);
	ASSERT(fw_plan_pending_for(p, b) != NULL);
	fw_snapshot_free(s);
}

TEST(reclaim_never_takes_a_queue_over_its_fair_share)
{
	/* n0, n1: H100, full of A's 2-GPU jobs; n2: A100, free.  Fair shares
	 * (deserved 4 / 4 / 16, no leftover): A 4, B 4, C 16 (C waits for a
	 * model nobody has).  A may lose 12 GPUs; B's 8-GPU H100 job would
	 * put B at 8 > 4, so the next cycle would reclaim it back: no. */
	struct fw_snapshot *s = fw_snapshot_new();
	tb_node(s, "n0", 8, NULL, NULL, NULL, NULL);
	tb_node(s, "n1", 8, NULL, NULL, NULL, NULL);
	tb_node(s, "n2", 8, "A100", NULL, NULL, NULL);
	tb_queue(s, "A", -1, 4, -1, 1);
	tb_queue(s, "B", -1, 4, -1, 1);
	tb_queue(s, "C", -1, 16, -1, 1);
	s->now = 1000;
	for (int i = 0; i < 8; i++) {
		char n[8];
		int node = i / 4;
		snprintf(n, sizeof n, "a%d", i);
		int j = tb_job(s, n, 0, 1, 2, 1000, 0);
		tb_run(s, j, 1, &node, 3u << (2 * (i % 4)));
		s->jobs[j].start_time = 10 * i;
		s->jobs[j].preemptible = true;
	}
	int c = tb_job(s, "c", 2, 2, 8, 1000, 0);
	snprintf(s->jobs[c].groups[0].gpu_model, FW_NAME_MAX, "X");
	int b = tb_job(s, "b8", 1, 1, 8, 1000, 0);
	snprintf(s->jobs[b].groups[0].gpu_model, FW_NAME_MAX, "H100");
	struct fw_plan *p = run(s, "kai"); /* FW_RECLAIM_KEEP_SHARE */
	ASSERT(p != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 0);
	/* fairway's FW_RECLAIM_NARROW: the 8 GPUs of one node: A keeps
	 * 8 / 4 = 2x its share, B gets 8 / 4 = 2x: the gap narrows, and A
	 * could not take them back (B would have to stay at >= A's ratio) */
	p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 4);
	ASSERT(start_of(p, b) != NULL);
	s->jobs[b].groups[0].gpus = 4; /* B at 4 = its fair share: yes */
	p = run(s, "kai");
	ASSERT(p != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 2);
	ASSERT(start_of(p, b) != NULL);
	fw_snapshot_free(s);
}

/* Evictions in the plan of policy pol for s; -1 when the cycle fails. */
static int evictions(const struct fw_snapshot *s, const char *pol)
{
	struct fw_plan *p = run(s, pol);
	return p ? count_kind(p, FW_DECIDE_EVICT) : -1;
}

/* Two 8-GPU nodes, queues A and B (deserved 8 each), and queue A's jobs
 * 0 and 1 running on n0 and n1 with all their GPUs. */
static struct fw_snapshot *two_busy_nodes(fw_time now)
{
	struct fw_snapshot *s = fw_snapshot_new();
	tb_node(s, "n0", 8, NULL, NULL, NULL, NULL);
	tb_node(s, "n1", 8, NULL, NULL, NULL, NULL);
	tb_queue(s, "A", -1, 8, -1, 1);
	tb_queue(s, "B", -1, 8, -1, 1);
	s->now = now;
	for (int i = 0; i < 2; i++) {
		int j = tb_job(s, i ? "r1" : "r0", 0, 1, 8, 1000, 0);
		tb_run(s, j, 1, &i, 0xff);
	}
	return s;
}

/* Three busy 8-GPU nodes ending at 100, 200 and 300, and four waiting
 * 8-GPU jobs (jobs 3..6). */
static struct fw_snapshot *four_blocked_jobs(void)
{
	struct fw_snapshot *s = fw_snapshot_new();
	tb_queue(s, "q", -1, 24, -1, 1);
	for (int i = 0; i < 3; i++) {
		char n[8];
		snprintf(n, sizeof n, "n%d", i);
		tb_node(s, n, 8, NULL, NULL, NULL, NULL);
		int j = tb_job(s, n, 0, 1, 8, 1000, 0);
		tb_run(s, j, 1, &i, 0xff);
		s->jobs[j].expected_runtime = 100 * (i + 1); /* ends 100, 200, 300 */
	}
	for (int i = 0; i < 4; i++) {
		char n[8];
		snprintf(n, sizeof n, "w%d", i);
		int j = tb_job(s, n, 0, 1, 8, 1000, 10 + i);
		s->jobs[j].expected_runtime = 1000;
	}
	return s;
}

/* Conservative backfill: every blocked job gets a reservation, one after
 * another on a node when they must; EASY (slurm): the first only. */
TEST(conservative_backfill_reserves_for_every_blocked_job)
{
	struct fw_snapshot *s = four_blocked_jobs();
	struct fw_plan *p = run(s, "slurm");
	ASSERT(p != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_RESERVE), 1);
	s->config.backfill_conservative = true;
	p = run(s, "slurm");
	ASSERT(p != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_RESERVE), 4);
	ASSERT_EQ(reservation_of(p, 3)->at, 100);
	ASSERT_EQ(reservation_of(p, 4)->at, 200);
	ASSERT_EQ(reservation_of(p, 5)->at, 300);
	ASSERT_EQ(reservation_of(p, 6)->at, 1100); /* on n0, once w0 is expected to end */
	ASSERT_OK(fw_plan_check(s, p, &A, &(struct fw_diag){ 0 }));
	/* policies without reservations ignore it */
	p = run(s, "kai");
	ASSERT(p != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_RESERVE), 0);
	fw_snapshot_free(s);
}

/* scheduler.reserveDepth: the snapshot's depth replaces the policy's for
 * a policy that makes reservations (fairway 16, slurm 1); < 0 is none;
 * fifo and kai ignore it; above FW_RESERVE_DEPTH_MAX the snapshot is
 * refused. */
TEST(the_config_sets_how_many_blocked_jobs_get_a_reservation)
{
	struct fw_snapshot *s = four_blocked_jobs();
	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_RESERVE), 4); /* depth 16: all four */
	s->config.reserve_depth = 2;
	p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_RESERVE), 2);
	ASSERT_EQ(reservation_of(p, 3)->at, 100);
	ASSERT_EQ(reservation_of(p, 4)->at, 200);
	ASSERT(reservation_of(p, 5) == NULL);
	s->config.reserve_depth = 3;
	p = run(s, "slurm"); /* its own depth is 1 */
	ASSERT(p != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_RESERVE), 3);
	p = run(s, "kai"); /* no reservations whatever the config */
	ASSERT(p != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_RESERVE), 0);
	s->config.reserve_depth = -1;
	p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_RESERVE), 0);
	s->config.reserve_depth = FW_RESERVE_DEPTH_MAX + 1;
	struct fw_diag d = { 0 };
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_ERANGE);
	ASSERT(strstr(d.field, "reserve_depth") != NULL);
	fw_snapshot_free(s);
}

/* Consolidation: four nodes each half taken by a 4-GPU job; 16 GPUs are
 * free but no two whole nodes, so the 2 x 8 gang cannot start.  fairway
 * moves two of the small jobs into the others' holes (EVICT, reason
 * MOVED, then START elsewhere in the same plan) and starts the gang. */
static bool is_started(const struct fw_plan *p, int job)
{
	for (int i = 0; i < p->ndecisions; i++)
		if (p->decisions[i].kind == FW_DECIDE_START && p->decisions[i].job == job)
			return true;
	return false;
}

static struct fw_snapshot *fragmented_case(void)
{
	struct fw_snapshot *s = fw_snapshot_new();
	tb_queue(s, "q", -1, 32, -1, 1);
	s->now = 10000;
	for (int i = 0; i < 4; i++) {
		char n[8];
		snprintf(n, sizeof n, "n%d", i);
		tb_node(s, n, 8, NULL, NULL, NULL, NULL);
		snprintf(n, sizeof n, "v%d", i);
		int j = tb_job(s, n, 0, 1, 4, 1000, 0);
		tb_run(s, j, 1, &i, 0x0f);
		s->jobs[j].preemptible = true;
		s->jobs[j].start_time = 1000 * i;  /* v3 has done the least work */
		s->jobs[j].expected_runtime = 100000;
	}
	int g = tb_job(s, "gang", 0, 2, 8, 1000, 5000);
	s->jobs[g].expected_runtime = 3600;
	return s;
}

TEST(consolidation_moves_small_jobs_to_free_nodes_for_a_gang)
{
	struct fw_snapshot *s = fragmented_case();
	int g = 4;
	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT(is_started(p, g));
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 2);
	int moved = 0;
	for (int i = 0; i < p->ndecisions; i++) {
		const struct fw_decision *d = &p->decisions[i];
		if (d->kind != FW_DECIDE_EVICT)
			continue;
		ASSERT_EQ(d->reason, FW_REASON_MOVED);
		ASSERT_EQ(d->a, g);
		ASSERT(d->job == 2 || d->job == 3); /* the least work first */
		/* restarted in the same plan, on a node the gang does not use */
		const struct fw_decision *st = NULL;
		for (int k = i + 1; k < p->ndecisions; k++)
			if (p->decisions[k].kind == FW_DECIDE_START && p->decisions[k].job == d->job)
				st = &p->decisions[k];
		ASSERT(st != NULL);
		const struct fw_decision *gs = NULL;
		for (int k = 0; k < p->ndecisions; k++)
			if (p->decisions[k].kind == FW_DECIDE_START && p->decisions[k].job == g)
				gs = &p->decisions[k];
		for (int m = 0; m < gs->alloc_count; m++)
			ASSERT(p->allocs[gs->alloc_first + m].node != p->allocs[st->alloc_first].node);
		moved++;
	}
	ASSERT_EQ(moved, 2);
	/* the checker holds a move to its word: the same plan without the
	 * moved jobs' restarts (the last two decisions) is two evictions */
	{
		struct fw_diag d;
		ASSERT_EQ(p->decisions[p->ndecisions - 1].kind, FW_DECIDE_START);
		ASSERT_NE(p->decisions[p->ndecisions - 1].job, g);
		p->ndecisions -= 2;
		ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
		ASSERT_STR_CONTAINS(d.msg, "moved");
	}
	/* kai does not consolidate */
	p = run(s, "kai");
	ASSERT(p != NULL);
	ASSERT(!is_started(p, g));
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 0);
	/* nothing moves when the small jobs are protected */
	s->queues[0].min_runtime_s = 100000;
	p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT(!is_started(p, g));
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 0);
	s->queues[0].min_runtime_s = 0;
	for (int i = 0; i < 4; i++)
		s->jobs[i].preemptible = false;
	ASSERT_EQ(evictions(s, "fairway"), 0);
	fw_snapshot_free(s);
}

/* The checker rejects a START of a running job that the plan did not
 * evict first. */
TEST(checker_catches_a_start_of_a_running_job)
{
	struct fw_snapshot *s = fragmented_case();
	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL);
	struct fw_diag d;
	for (int i = 0; i < p->ndecisions; i++)
		if (p->decisions[i].kind == FW_DECIDE_EVICT) {
			p->decisions[i].kind = FW_DECIDE_RESERVE; /* drop the eviction */
			break;
		}
	ASSERT(fw_plan_check(s, p, &A, &d) != FW_OK);
	fw_snapshot_free(s);
}

/* Estimates under a starvation age: a gang that earned no reservation is
 * expected no earlier than when it starves, and then behind older gangs
 * (a time profile of free GPUs, oldest first). */
TEST(unreserved_gangs_are_expected_in_age_order_after_starving)
{
	struct fw_snapshot *s = two_busy_nodes(100);
	s->config.starve_after_s = 3600;
	s->config.reserve_depth = 1; /* b's only: a1 and a2 hold none */
	for (int i = 0; i < 2; i++)
		s->jobs[i].expected_runtime = 1000 * (i + 1); /* n0 free at 1000, n1 at 2000 */
	int b = tb_job(s, "b", 1, 2, 8, 1000, 50);  /* B is below its share: tried first */
	s->jobs[b].expected_runtime = 1000;
	int a1 = tb_job(s, "a1", 0, 2, 8, 1000, 0), a2 = tb_job(s, "a2", 0, 2, 8, 1000, 10);
	s->jobs[a1].expected_runtime = s->jobs[a2].expected_runtime = 500;
	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT(reservation_of(p, b) != NULL);
	ASSERT_EQ(reservation_of(p, b)->at, 2000);
	ASSERT(reservation_of(p, a1) == NULL && reservation_of(p, a2) == NULL);
	/* a1 starves at 3600 (b holds both nodes 2000..3000), then a2 after it */
	ASSERT_EQ(fw_plan_pending_for(p, a1)->expected_start, 3600);
	ASSERT_EQ(fw_plan_pending_for(p, a2)->expected_start, 4100);
	/* without a starvation age: the walk alone, once b's reservation
	 * ends (gangs keep their shape's time at any estimate depth) */
	s->config.starve_after_s = -1;
	p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT_EQ(fw_plan_pending_for(p, a1)->expected_start, 3000);
	ASSERT_EQ(fw_plan_pending_for(p, a2)->expected_start, 3000);
	fw_snapshot_free(s);
}

/* A gang held by its queue's limit (over quota) is expected when the
 * limit lets it in and nodes have room, not when it starves: the limit,
 * not the order, holds it, and once it lets the gang in the gang is
 * tried in its turn (and reserved) as any blocked job.  Queue "capped"
 * (limit 16) runs r8 on n0 until t=1000; gang g (2 x 8 GPUs) fits the
 * limit only then, and n1 and n2 are idle: 1000, though it starves at
 * 3600.  (Until 2026-12-07 it read 3600: on the ITP cluster06 replay at
 * quota/limit 10/24 the 9+ GPU jobs' first estimates were 21.5 h late.) */
TEST(a_gang_held_by_its_queues_limit_is_expected_when_the_limit_lets_it_in)
{
	struct fw_snapshot *s = fw_snapshot_new();
	int n0 = tb_node(s, "n0", 8, NULL, NULL, NULL, NULL);
	tb_node(s, "n1", 8, NULL, NULL, NULL, NULL);
	tb_node(s, "n2", 8, NULL, NULL, NULL, NULL);
	int q = tb_queue(s, "capped", -1, 8, 16, 1);
	tb_queue(s, "open", -1, 8, -1, 1);
	s->now = 100;
	s->config.starve_after_s = 3600;
	int r = tb_job(s, "r8", q, 1, 8, 1000, 0);
	tb_run(s, r, 1, &n0, 0xff);
	s->jobs[r].expected_runtime = 1000;
	int g = tb_job(s, "g", q, 2, 8, 1000, 0);
	s->jobs[g].expected_runtime = 500;
	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL);
	const struct fw_pending *pg = fw_plan_pending_for(p, g);
	ASSERT(pg != NULL);
	ASSERT_EQ(pg->reason, FW_REASON_OVER_QUOTA);
	ASSERT(reservation_of(p, g) == NULL);
	ASSERT_EQ(pg->expected_start, 1000);
	fw_snapshot_free(s);
}

/* Nodes n0..n<k-1> of 8 GPUs, each running a job of queue A (over its
 * share; B below it) on the GPUs of `mask` until ends[i]. */
static struct fw_snapshot *busy_until(fw_time now, int k, const fw_time *ends, uint32_t mask)
{
	struct fw_snapshot *s = fw_snapshot_new();
	tb_queue(s, "A", -1, 8, -1, 1);
	tb_queue(s, "B", -1, 8, -1, 1);
	s->now = now;
	for (int i = 0; i < k; i++) {
		char n[8];
		snprintf(n, sizeof n, "n%d", i);
		tb_node(s, n, 8, NULL, NULL, NULL, NULL);
		int j = tb_job(s, n, 0, 1, __builtin_popcount(mask), 1000, 0);
		tb_run(s, j, 1, &i, mask);
		s->jobs[j].start_time = 0;
		s->jobs[j].expected_runtime = ends[i];
	}
	return s;
}

/* A reserved gang that starves before its reservation is tried ahead of
 * the order that reserved it so late: it is expected where it fits from
 * its starving time on (its reservation stays as the cycle made it). */
TEST(a_gang_reserved_beyond_its_starving_time_is_expected_sooner)
{
	fw_time ends[] = { 1000, 1200, 2000, 3000, 3500 };
	struct fw_snapshot *s = busy_until(100, 5, ends, 0xff);
	s->config.starve_after_s = 1000;
	int b = tb_job(s, "b", 1, 3, 8, 1000, 50); /* B is below its share: tried first */
	int a = tb_job(s, "a", 0, 2, 8, 1000, 0);  /* starves at 1000 */
	s->jobs[b].expected_runtime = 1000;
	s->jobs[a].expected_runtime = 500;
	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT(reservation_of(p, b) != NULL && reservation_of(p, a) != NULL);
	ASSERT_EQ(reservation_of(p, b)->at, 2000); /* n0, n1, n2 */
	ASSERT_EQ(reservation_of(p, a)->at, 3000); /* on b's nodes once b is expected to end */
	/* at 1000 it starves; n0 and n1 are free from 1200 until b's 2000 */
	ASSERT_EQ(fw_plan_pending_for(p, a)->expected_start, 1200);
	ASSERT_EQ(fw_plan_pending_for(p, b)->expected_start, 2000);
	/* it runs 900 s: the profile keeps b's reservation, so it fits once
	 * b is expected to end, which is its reservation's time */
	s->jobs[a].expected_runtime = 900;
	p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT_EQ(reservation_of(p, a)->at, 3000);
	ASSERT_EQ(fw_plan_pending_for(p, a)->expected_start, 3000);
	/* without a starvation age, the reservation's time */
	s->jobs[a].expected_runtime = 500;
	s->config.starve_after_s = -1;
	p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT_EQ(fw_plan_pending_for(p, a)->expected_start, reservation_of(p, a)->at);
	fw_snapshot_free(s);
}

/* The starving pass tries old gangs first; when the cycle's starts run
 * out after it (config.max_starts), the jobs left untried wait
 * cycle_limit, but a gang the starving pass reserved keeps its reason
 * and its expected start, the reservation's time (found by
 * tests/fuzz/fuzz_cycle.c: the checker refused the plan, a reservation
 * with no expected start). */
TEST(a_starving_gangs_reservation_outlives_the_start_limit)
{
	fw_time ends[] = { 2000, 3000 };
	struct fw_snapshot *s = busy_until(5000, 2, ends, 0x3f); /* 2 GPUs free on each node */
	s->jobs[0].expected_runtime = ends[0] + 5000;
	s->jobs[1].expected_runtime = ends[1] + 5000;
	s->config.starve_after_s = 600;
	s->config.max_starts = 1;
	int g = tb_job(s, "g", 1, 2, 6, 1000, 0); /* starving, needs both nodes */
	int x = tb_job(s, "x", 1, 1, 1, 1000, 4000);
	int y = tb_job(s, "y", 1, 1, 1, 1000, 4500);
	/* x, g, y in B's order (x's expansion factor is the largest): g
	 * lies past the start */
	s->jobs[g].expected_runtime = 1000000;
	s->jobs[x].expected_runtime = 100;
	s->jobs[y].expected_runtime = 100;
	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL); /* the checker passed */
	ASSERT(reservation_of(p, g) != NULL);
	ASSERT_EQ(fw_plan_pending_for(p, g)->reason, FW_REASON_HAS_RESERVATION);
	ASSERT_EQ(fw_plan_pending_for(p, g)->expected_start, reservation_of(p, g)->at);
	ASSERT_EQ(tb_count(p, FW_DECIDE_START, FW_REASON_NONE), 1);
	ASSERT(start_of(p, x) != NULL);
	ASSERT_EQ(fw_plan_pending_for(p, y)->reason, FW_REASON_CYCLE_LIMIT);
	fw_snapshot_free(s);
}

/* The starving gangs' time profile counts whole free nodes for gangs of
 * whole-node tasks: 16 GPUs free on four half-busy nodes do not hold a
 * gang of two 8-GPU tasks. */
TEST(the_gang_queue_counts_free_task_slots_not_gpus)
{
	fw_time ends[] = { 5000, 6000, 7000, 8000 };
	struct fw_snapshot *s = busy_until(100, 4, ends, 0x0f);
	s->config.starve_after_s = 1000;
	int g = tb_job(s, "g", 0, 2, 8, 1000, 0);
	s->jobs[g].expected_runtime = 100;
	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT(reservation_of(p, g) != NULL);
	ASSERT_EQ(reservation_of(p, g)->at, 6000);
	ASSERT_EQ(fw_plan_pending_for(p, g)->expected_start, 6000);
	/* four 4-GPU tasks fit in the four free halves: it starts now */
	s->jobs[g].groups[0].count = 4;
	s->jobs[g].groups[0].gpus = 4;
	p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT(fw_plan_pending_for(p, g) == NULL);
	fw_snapshot_free(s);
}

/* Two 8-GPU nodes a and b, one queue; a busy until 3600 (QA's gest.yaml). */
static struct fw_snapshot *gang_line(fw_time now)
{
	struct fw_snapshot *s = fw_snapshot_new();
	tb_node(s, "a", 8, NULL, NULL, NULL, NULL);
	tb_node(s, "b", 8, NULL, NULL, NULL, NULL);
	tb_queue(s, "q", -1, 16, -1, 1);
	s->now = now;
	s->config.reserve_depth = 1;
	return s;
}


/* A running job past its expected end (QA's over.yaml): it is expected to
 * run as long again as it has run, at most to its run-time limit.  Not
 * "now" for ever: the reservation and the estimate agree, and the idle
 * node takes a job that ends before the reservation. */
TEST(a_job_past_its_expected_end_is_expected_to_run_as_long_again)
{
	struct fw_snapshot *s = gang_line(7200);
	int zero = 0;
	s->config.reserve_depth = 0; /* the policy's */
	int o = tb_job(s, "overrun", 0, 1, 8, 1000, 0);
	tb_run(s, o, 1, &zero, 0xff);
	s->jobs[o].start_time = 0;
	s->jobs[o].expected_runtime = 600;
	int big = tb_job(s, "big", 0, 2, 8, 1000, 0), fill = tb_job(s, "filler", 0, 1, 8, 1000, 100);
	s->jobs[big].expected_runtime = s->jobs[fill].expected_runtime = 3600;
	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT(reservation_of(p, big) != NULL);
	ASSERT_EQ(reservation_of(p, big)->at, 14400);
	ASSERT_EQ(fw_plan_pending_for(p, big)->expected_start, 14400);
	ASSERT(decision(p, fill, FW_DECIDE_START) != NULL);
	ASSERT_EQ(node_of(p, fill, 0), 1);
	/* a run-time limit bounds it: the cycle ends it at 9000 */
	s->jobs[o].max_runtime_s = 9000;
	p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT_EQ(reservation_of(p, big)->at, 9000);
	ASSERT_EQ(fw_plan_pending_for(p, big)->expected_start, 9000);
	ASSERT(decision(p, fill, FW_DECIDE_START) == NULL); /* it would run past 9000 */
	fw_snapshot_free(s);
}

/* A reserved job that could start now but for an earlier reservation
 * says so (QA's est2.yaml: j3 fits on a's free GPUs, which j4 holds from
 * t=9000), as it does with one reservation a cycle (reason reserved). */
TEST(a_reserved_job_says_why_it_did_not_start_now)
{
	struct fw_snapshot *s = gang_line(7200);
	int one = 1;
	char buf[FW_REASON_TEXT_MAX + FW_NAME_MAX];
	s->config.reserve_depth = 0; /* the policy's */
	int rb = tb_job(s, "runB", 0, 1, 6, 1000, 0);
	tb_run(s, rb, 1, &one, 0x3f);
	s->jobs[rb].start_time = 0;
	s->jobs[rb].expected_runtime = 10800;
	int j2 = tb_job(s, "j2", 0, 1, 4, 1000, 0), j3 = tb_job(s, "j3", 0, 1, 4, 1000, 0);
	int j4 = tb_job(s, "j4", 0, 1, 8, 1000, 0), j6 = tb_job(s, "j6", 0, 1, 2, 1000, 0);
	s->jobs[j2].expected_runtime = 1800;
	s->jobs[j3].expected_runtime = 7200;
	s->jobs[j4].expected_runtime = 3600;
	s->jobs[j6].expected_runtime = 18000;
	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT(start_of(p, j2) != NULL);
	ASSERT_EQ(reservation_of(p, j4)->at, 9000);
	const struct fw_pending *r = fw_plan_pending_for(p, j3);
	ASSERT_EQ(r->reason, FW_REASON_HAS_RESERVATION);
	ASSERT_EQ(r->why_a, j4);
	ASSERT_EQ(r->why_b, 9000);
	ASSERT_STR_EQ(fw_pending_format(s, r, buf, sizeof buf),
		      "reserved: nodes are held for it from t=10800 (in 1h00m); not now: it fits, but would delay "
		      "the reservation of j4 (due at t=9000)");
	/* j4 (8 GPUs) fit on a at the cycle's start, but j2, served first,
	 * took half of it: no room now, and why */
	r = fw_plan_pending_for(p, j4);
	ASSERT_EQ(r->reason, FW_REASON_HAS_RESERVATION);
	ASSERT_EQ(r->why_a, -1);
	ASSERT_EQ(r->why_b, FW_REASON_FAIRSHARE_ORDER);
	ASSERT_STR_EQ(fw_pending_format(s, r, buf, sizeof buf),
		      "reserved: nodes are held for it from t=9000 (in 30m); not now: jobs served before it in "
		      "fair-share order took the room");
	fw_snapshot_free(s);
}

/* A gang that has waited starve_after_s (fairway: 24 h) is tried before
 * the fair-share order, so it earns a reservation although its queue is
 * over its share and newer jobs of another queue fill every reservation
 * the nodes can hold. */
static struct fw_snapshot *starving_case(void)
{
	struct fw_snapshot *s = two_busy_nodes(200000);
	for (int i = 0; i < 2; i++) {
		s->jobs[i].start_time = 150000;
		s->jobs[i].expected_runtime = 60000 + 10000 * i; /* n0 210000, n1 220000 */
	}
	int g = tb_job(s, "gang", 0, 2, 8, 1000, 1000); /* waited 55 h */
	s->jobs[g].expected_runtime = 3600;
	for (int i = 0; i < 20; i++) {
		char n[8];
		snprintf(n, sizeof n, "b%d", i);
		int j = tb_job(s, n, 1, 1, 8, 1000, s->now - 100 + i);
		s->jobs[j].expected_runtime = 86400;
	}
	return s;
}

TEST(a_starving_gang_is_tried_first_and_reserved)
{
	struct fw_snapshot *s = starving_case();
	int g = 2;
	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT(reservation_of(p, g) != NULL);
	ASSERT_EQ(reservation_of(p, g)->at, 220000);
	ASSERT_EQ(fw_plan_pending_for(p, g)->reason, FW_REASON_HAS_RESERVATION);
	ASSERT_EQ(fw_plan_pending_for(p, g)->expected_start, 220000);
	/* a reservation depth of 1: the starving gang takes the only one */
	s->config.reserve_depth = 1;
	p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT(reservation_of(p, g) != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_RESERVE), 1);
	/* none: no reservation, so no starving pass either */
	s->config.reserve_depth = -1;
	p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_RESERVE), 0);
	s->config.reserve_depth = 0;
	/* switched off: B's newer jobs take both nodes' reservations first */
	s->config.starve_after_s = -1;
	p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT(reservation_of(p, g) == NULL);
	/* a younger gang is not starving yet */
	s->config.starve_after_s = 0;
	s->jobs[g].submit_time = s->now - 3600;
	p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT(reservation_of(p, g) == NULL);
	fw_snapshot_free(s);
}

/* A job that started after starving is not reclaimed: it waited its turn. */
TEST(reclaim_spares_a_job_that_started_after_starving)
{
	struct fw_snapshot *s = two_busy_nodes(400000);
	int r[2] = { 0, 1 };
	for (int i = 0; i < 2; i++) {
		s->jobs[r[i]].preemptible = true;
		s->jobs[r[i]].start_time = 390000;
	}
	s->jobs[r[0]].submit_time = 390000 - 30 * 3600; /* waited 30 h */
	s->jobs[r[1]].submit_time = 390000 - 3600;      /* waited 1 h */
	int b = tb_job(s, "b", 1, 1, 8, 1000, 399000);
	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 1);
	ASSERT(start_of(p, b) != NULL);
	for (int i = 0; i < p->ndecisions; i++)
		if (p->decisions[i].kind == FW_DECIDE_EVICT)
			ASSERT_EQ(p->decisions[i].job, r[1]);
	s->jobs[r[1]].submit_time = 390000 - 25 * 3600; /* both starved */
	ASSERT_EQ(evictions(s, "fairway"), 0);
	fw_snapshot_free(s);
}

/* FW_RECLAIM_NARROW never lets a move make the victim's side worse off
 * than the preemptor's: A at 10 / 8 would drop to 2 / 8 = 0.25x while
 * B rose to 8 / 4 = 2x. */
TEST(narrowing_reclaim_never_inverts_two_queues)
{
	struct fw_snapshot *s = fw_snapshot_new();
	tb_node(s, "n0", 8, NULL, NULL, NULL, NULL);
	tb_node(s, "n1", 8, NULL, NULL, NULL, NULL);
	tb_queue(s, "A", -1, 8, -1, 1);
	tb_queue(s, "B", -1, 4, -1, 1);
	s->now = 1000;
	int a = tb_job(s, "a8", 0, 1, 8, 1000, 0), a2 = tb_job(s, "a2", 0, 1, 2, 1000, 0);
	int n0 = 0, n1 = 1;
	tb_run(s, a, 1, &n0, 0xff);
	tb_run(s, a2, 1, &n1, 0x03);
	s->jobs[a].preemptible = s->jobs[a2].preemptible = true;
	int other = tb_job(s, "x", 0, 1, 6, 1000, 0); /* A wants more too */
	snprintf(s->jobs[other].groups[0].gpu_model, FW_NAME_MAX, "X");
	int b = tb_job(s, "b8", 1, 1, 8, 1000, 0);
	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 0);
	ASSERT(start_of(p, b) == NULL);
	fw_snapshot_free(s);
}

/* FW_RECLAIM_NARROW compares the two children of the queues' lowest
 * common ancestor, not the leaves.  research (vision 4, nlp 4) and
 * product (ranking 2, ads 6), 8 GPUs each of 16.  vision runs two 4-GPU
 * jobs on n0, ranking two on n1 (started later: cheaper to evict); ads
 * waits for a GPU model no node has, so its 6 count in product's share
 * but it never preempts.  nlp (0 of 4) asks for 4:
 *   - a ranking job: product would fall to 4 / 8 while research rose to
 *     12 / 8: no (the leaves alone, ranking 4 / 2 against nlp 4 / 4,
 *     would have said yes);
 *   - a vision job: within research, vision 4 / 4 against nlp 4 / 4: yes.
 * So a vision job goes, though a ranking job loses less work. */
TEST(narrowing_reclaim_compares_the_children_of_the_common_ancestor)
{
	struct fw_snapshot *s = fw_snapshot_new();
	int vis[2], rank[2], n0 = 0, n1 = 1;

	tb_node(s, "n0", 8, NULL, NULL, NULL, NULL);
	tb_node(s, "n1", 8, NULL, NULL, NULL, NULL);
	int research = tb_queue(s, "research", -1, 8, -1, 1), product = tb_queue(s, "product", -1, 8, -1, 1);
	int vision = tb_queue(s, "vision", research, 4, -1, 1), nlp = tb_queue(s, "nlp", research, 4, -1, 1);
	int ranking = tb_queue(s, "ranking", product, 2, -1, 1), ads = tb_queue(s, "ads", product, 6, -1, 1);
	s->now = 1000;
	for (int i = 0; i < 2; i++) {
		vis[i] = tb_job(s, i ? "vision-1" : "vision-0", vision, 1, 4, 1000, 0);
		tb_run(s, vis[i], 1, &n0, i ? 0xf0 : 0x0f);
		s->jobs[vis[i]].start_time = 100;
		rank[i] = tb_job(s, i ? "ranking-1" : "ranking-0", ranking, 1, 4, 1000, 500);
		tb_run(s, rank[i], 1, &n1, i ? 0xf0 : 0x0f);
		s->jobs[rank[i]].start_time = 900;
		s->jobs[vis[i]].preemptible = s->jobs[rank[i]].preemptible = true;
	}
	int wait = tb_job(s, "ads-b200", ads, 1, 6, 1000, 600);
	snprintf(s->jobs[wait].groups[0].gpu_model, FW_NAME_MAX, "B200");
	int want = tb_job(s, "nlp-4", nlp, 1, 4, 1000, 700);

	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT(start_of(p, want) != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 1);
	ASSERT(evict_of(p, vis[0]) != NULL || evict_of(p, vis[1]) != NULL);
	ASSERT(evict_of(p, rank[0]) == NULL && evict_of(p, rank[1]) == NULL);
	const struct fw_decision *e = evict_of(p, vis[0]) ? evict_of(p, vis[0]) : evict_of(p, vis[1]);
	ASSERT_EQ(e->reason, FW_REASON_RECLAIMED);
	ASSERT_EQ(e->a, want);
	(void)product;
	fw_snapshot_free(s);
}

TEST(preemption_within_a_queue_by_priority)
{
	struct fw_snapshot *s = fw_snapshot_new();
	int n0 = 0;
	tb_node(s, "n0", 8, NULL, NULL, NULL, NULL);
	tb_queue(s, "q", -1, 8, -1, 1);
	s->now = 1000;
	int lo = tb_job(s, "lo", 0, 1, 8, 1000, 0);
	tb_run(s, lo, 1, &n0, 0xff);
	s->jobs[lo].preemptible = true;
	int same = tb_job(s, "same", 0, 1, 8, 1000, 10); /* equal priority: no */
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 0);
	s->jobs[same].priority = 5;
	p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(p->ndecisions, 2);
	ASSERT_EQ(p->decisions[0].reason, FW_REASON_PREEMPTED);
	ASSERT_EQ(p->decisions[0].job, lo);
	ASSERT_EQ(p->decisions[0].a, same);
	ASSERT_EQ(p->decisions[1].job, same);
	ASSERT_EQ(count_kind(run(s, "kai"), FW_DECIDE_EVICT), 1);
	fw_snapshot_free(s);
}

TEST(evictions_are_bounded_per_cycle)
{
	struct fw_snapshot *s = fw_snapshot_new();
	struct fw_policy_ops pol = *fw_policy_find("fairway");
	int n0 = 0;
	tb_node(s, "n0", 8, NULL, NULL, NULL, NULL);
	tb_queue(s, "q", -1, 8, -1, 1);
	s->now = 1000;
	for (int i = 0; i < 8; i++) {
		int j = tb_job(s, "lo", 0, 1, 1, 1000, 0);
		tb_run(s, j, 1, &n0, 1u << i);
		s->jobs[j].preemptible = true;
	}
	for (int i = 0; i < 3; i++)
		s->jobs[tb_job(s, "hi", 0, 1, 1, 1000, 10)].priority = 5;
	pol.max_evictions = 2;
	struct fw_plan *p = run_pol(s, &pol);
	ASSERT(p != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 2);
	ASSERT_EQ(count_kind(p, FW_DECIDE_START), 2);
	ASSERT_EQ(p->npending, 1);
	/* a gang needing more victims than the bound evicts nothing */
	int big = tb_job(s, "big", 0, 1, 8, 1000, 5);
	s->jobs[big].priority = 9;
	pol.max_evictions = 4;
	p = run_pol(s, &pol);
	ASSERT(p != NULL);
	ASSERT(evict_of(p, 0) == NULL || start_of(p, big) == NULL);
	ASSERT(start_of(p, big) == NULL);
	fw_snapshot_free(s);
}

/* random_snapshot with 24 running 2-GPU jobs of queues 1..3 on nodes 0..23
 * (started 100 s apart, 9,000 s each): victims for reclaim. */
static struct fw_snapshot *random_snapshot_with_fillers(uint32_t seed)
{
	struct fw_snapshot *s = random_snapshot(seed);
	for (int n = 0; n < 24; n++) {
		char nm[16];
		snprintf(nm, sizeof nm, "fill%02d", n);
		int id = tb_job(s, nm, 1 + n % 3, 1, 2, 1000, 0);
		tb_run(s, id, 1, &n, 0xc);
		s->jobs[id].start_time = 100 * n;
		s->jobs[id].expected_runtime = 9000;
	}
	return s;
}

TEST(reclaim_is_deterministic_and_keeps_every_invariant_on_random_snapshots)
{
	int evictions = 0;
	for (uint32_t seed = 1; seed <= 40; seed++) {
		struct fw_snapshot *s = random_snapshot_with_fillers(seed);
		for (int j = 0; j < s->njobs; j++)
			s->jobs[j].preemptible = s->jobs[j].state == FW_JOB_RUNNING && j % 5 != 0;
		s->queues[2].min_runtime_s = 1500;
		struct fw_arena b;
		struct fw_plan *p = run(s, NULL), *q = NULL;
		ASSERT(p != NULL);
		evictions += count_kind(p, FW_DECIDE_EVICT);
		fw_arena_init(&b, 4096);
		ASSERT_OK(fw_cycle_run(s, NULL, &b, &q));
		ASSERT_EQ(p->ndecisions, q->ndecisions);
		ASSERT_EQ(p->nallocs, q->nallocs);
		ASSERT_OK(memcmp(p->allocs, q->allocs, (size_t)p->nallocs * sizeof *p->allocs));
		ASSERT_OK(memcmp(p->pending, q->pending, (size_t)p->npending * sizeof *p->pending));
		for (int i = 0; i < p->ndecisions; i++) {
			ASSERT_EQ(p->decisions[i].job, q->decisions[i].job);
			ASSERT_EQ(p->decisions[i].kind, q->decisions[i].kind);
		}
		fw_arena_release(&b);
		ASSERT(run(s, "kai") != NULL);
		fw_snapshot_free(s);
	}
	ASSERT(evictions > 0); /* the checker really saw evictions */
}

/* Random snapshots with checkpoints and a grace: the checker passes
 * every plan (each wait names its victim's next checkpoint, within the
 * grace), plans repeat, and both waits and evictions happen. */
TEST(checkpoint_waits_keep_every_invariant_on_random_snapshots)
{
	int waits = 0, evictions = 0;
	for (uint32_t seed = 1; seed <= 40; seed++) {
		struct fw_snapshot *s = random_snapshot_with_fillers(seed);
		for (int j = 0; j < s->njobs; j++) {
			s->jobs[j].preemptible = s->jobs[j].state == FW_JOB_RUNNING && j % 5 != 0;
			s->jobs[j].checkpoint_s = j % 4 == 3 ? 0 : 700 + 300 * (j % 4);
		}
		s->config.checkpoint_grace_s = 300 + 200 * (seed % 4);
		for (int k = 0; k < 2; k++) {
			struct fw_plan *p = run(s, k ? "kai" : NULL), *q = NULL;
			ASSERT(p != NULL);
			struct fw_arena b;
			fw_arena_init(&b, 4096);
			ASSERT_OK(fw_cycle_run(s, k ? fw_policy_find("kai") : NULL, &b, &q));
			ASSERT_EQ(p->ndecisions, q->ndecisions);
			ASSERT_OK(memcmp(p->pending, q->pending, (size_t)p->npending * sizeof *p->pending));
			fw_arena_release(&b);
			evictions += count_kind(p, FW_DECIDE_EVICT);
			for (int i = 0; i < p->npending; i++)
				waits += p->pending[i].reason == FW_REASON_CHECKPOINT_WAIT;
		}
		fw_snapshot_free(s);
	}
	ASSERT(waits > 40);
	ASSERT(evictions > 250);
}

/* ---- no ping-pong over consecutive cycles (lib/preempt.c) ---- */

/* Four departments of four leaves each, odd quotas and weights, on 48
 * nodes x 8 GPUs, usage halving every hour. */
static struct fw_snapshot *pingpong_fleet(uint32_t seed)
{
	static const double dq[4] = { 95, 70, 42.5, 30 }, lq[4] = { 12.5, 15, 8.75, 10 };
	struct fw_snapshot *s = fw_snapshot_new();
	for (int n = 0; n < 48; n++) {
		char nm[8];
		snprintf(nm, sizeof nm, "n%02d", n);
		tb_node(s, nm, 8, NULL, NULL, NULL, NULL);
	}
	for (int d = 0; d < 4; d++) {
		char nm[8];
		snprintf(nm, sizeof nm, "d%d", d);
		int dq_ = tb_queue(s, nm, -1, dq[d], -1, 1 + d % 2);
		for (int l = 0; l < 4; l++) {
			snprintf(nm, sizeof nm, "d%dl%d", d, l);
			tb_queue(s, nm, dq_, lq[l] * (1 + (seed + (uint32_t)d) % 3), -1, 1 + (l + seed) % 3);
		}
	}
	s->config.usage_half_life_s = 3600;
	return s;
}

/* Pending jobs of a quarter, half, 1, 2, 4 or 8 GPUs for leaf q,
 * submitted at `at`. */
static void pingpong_backlog(struct fw_snapshot *s, int q, int n, fw_time at, uint32_t *x)
{
	static const int g[6] = { 1, 1, 1, 2, 4, 8 }, milli[6] = { 250, 500, 1000, 1000, 1000, 1000 };
	for (int i = 0; i < n; i++) {
		char nm[24];
		int k = (int)(tb_xs32(x) % 6);
		snprintf(nm, sizeof nm, "q%dj%d", q, s->njobs);
		int j = tb_job(s, nm, q, 1, g[k], milli[k], at);
		s->jobs[j].preemptible = true;
		s->jobs[j].expected_runtime = 1000000;
	}
}

/* Apply plan p to s (starts run at now, evicted jobs wait again), add
 * each queue's use over the next dt seconds to its usage, and advance
 * the clock. */
static void pingpong_apply(struct fw_snapshot *s, const struct fw_plan *p, fw_time dt)
{
	for (int i = 0; i < p->ndecisions; i++) {
		const struct fw_decision *d = &p->decisions[i];
		struct fw_job *j = &s->jobs[d->job];
		if (d->kind == FW_DECIDE_EVICT) {
			j->state = FW_JOB_PENDING;
			j->alloc_count = 0;
		} else if (d->kind == FW_DECIDE_START) {
			j->state = FW_JOB_RUNNING;
			j->start_time = s->now;
			j->alloc_first = s->nallocs;
			j->alloc_count = d->alloc_count;
			for (int k = 0; k < d->alloc_count; k++)
				fw_snapshot_add_alloc(s, &p->allocs[d->alloc_first + k]);
		}
	}
	for (int q = 0; q < s->nqueues; q++) {
		s->queues[q].usage = fw_usage_decay(s->queues[q].usage, s->queues[q].usage_at, s->now,
						    s->config.usage_half_life_s);
		s->queues[q].usage_at = s->now;
	}
	for (int j = 0; j < s->njobs; j++)
		if (s->jobs[j].state == FW_JOB_RUNNING)
			s->queues[s->jobs[j].queue].usage += (double)fw_job_gpus(&s->jobs[j]) * (double)dt;
	s->now += dt;
}

/* A cycle may reclaim from a queue; the next may not take a job that
 * cycle started back for the queue it took from (issue: no thrashing).
 * Random fleets, every leaf's backlog at once, 25 cycles of 10 s with
 * each cycle's plan applied and decayed usage moving the fair shares:
 * reclaims happen, and never the reverse of the last cycle's between
 * the same two leaves.  (Before FW_RECLAIM_NARROW compared every queue
 * below the common ancestor and the fair-share band, some did.) */
TEST(reclaim_never_takes_back_what_the_last_cycle_reclaimed)
{
	int evictions = 0, back = 0;
	for (uint32_t seed = 1; seed <= 12; seed++) {
		uint32_t x = seed * 2654435761u;
		struct fw_snapshot *s = pingpong_fleet(seed);
		bool took[20][20] = { { false } }; /* [preemptor leaf][victim leaf], last cycle */
		for (int q = 0; q < s->nqueues; q++)
			if (s->queues[q].parent >= 0)
				pingpong_backlog(s, q, q < 5 ? 80 : 40, 0, &x);
		for (int c = 0; c < 25; c++) {
			struct fw_plan *p = run(s, "fairway");
			ASSERT(p != NULL);
			bool now_took[20][20] = { { false } };
			for (int i = 0; i < p->ndecisions; i++) {
				const struct fw_decision *d = &p->decisions[i];
				if (d->kind != FW_DECIDE_EVICT || d->reason != FW_REASON_RECLAIMED)
					continue;
				const struct fw_job *v = &s->jobs[d->job];
				evictions++;
				now_took[d->b][v->queue] = true;
				/* v started last cycle, its leaf then took from d->b's */
				back += c > 0 && v->start_time == s->now - 10 && took[v->queue][d->b];
			}
			memcpy(took, now_took, sizeof took);
			pingpong_apply(s, p, 10);
		}
		fw_snapshot_free(s);
	}
	ASSERT(evictions > 50); /* reclaim really ran */
	ASSERT_EQ(back, 0);
}

TEST(checker_catches_a_bad_eviction)
{
	int a[4];
	struct fw_snapshot *s = reclaim_case(a);
	struct fw_diag d;
	tb_job(s, "b", 1, 1, 4, 1000, 500);
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	int v = p->decisions[0].job;
	/* not preemptible */
	s->jobs[v].preemptible = false;
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "not preemptible");
	s->jobs[v].preemptible = true;
	/* its queue not preemptible */
	s->queues[s->jobs[v].queue].nonpreemptible = true;
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "(or one above it) is not preemptible");
	s->queues[s->jobs[v].queue].nonpreemptible = false;
	/* inside its protection */
	s->queues[0].min_runtime_s = 100000;
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "protection");
	s->queues[0].min_runtime_s = 0;
	/* evicted for nothing: no start after it */
	p->ndecisions = 1;
	int32_t np = p->npending;
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	p->ndecisions = 2;
	/* the start does not use the victim's node */
	p->decisions[0].job = v == a[3] ? a[0] : a[3];
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "evicted for nothing");
	p->decisions[0].job = v;
	ASSERT_OK(fw_plan_check(s, p, &A, &d));
	/* without the eviction the start over-commits a GPU */
	p->decisions[0].kind = FW_DECIDE_DRAIN;
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	(void)np;
	fw_snapshot_free(s);
}

/* Consolidation makes two decisions for a moved job (EVICT, then START
 * elsewhere): with two moved jobs and one gang the plan has five
 * decisions for three jobs.  Each arena allocation here is a block of
 * its own, so writing past the cycle's decision array is a heap overflow
 * the sanitizers see, not a silent write into the next array. */
TEST(consolidation_decisions_fit_when_moves_outnumber_the_other_jobs)
{
	struct fw_snapshot *s = fw_snapshot_new();
	struct fw_arena b;
	struct fw_plan *p = NULL;
	struct fw_diag d;
	int a0 = 0, a1 = 1;

	tb_queue(s, "q", -1, 32, -1, 1);
	s->now = 10000;
	tb_node(s, "n0", 8, NULL, NULL, NULL, NULL);
	tb_node(s, "n1", 8, NULL, NULL, NULL, NULL);
	tb_node(s, "small0", 4, NULL, NULL, NULL, NULL);
	tb_node(s, "small1", 4, NULL, NULL, NULL, NULL);
	tb_node(s, "n2", 8, NULL, NULL, NULL, NULL);
	for (int i = 0; i < 2; i++) {
		int j = tb_job(s, i ? "v1" : "v0", 0, 1, 4, 1000, 0);
		tb_run(s, j, 1, i ? &a1 : &a0, 0x0f);
		s->jobs[j].preemptible = true;
		s->jobs[j].start_time = 5000;
		s->jobs[j].expected_runtime = 100000;
	}
	int g = tb_job(s, "gang", 0, 3, 8, 1000, 5000);
	s->jobs[g].expected_runtime = 3600;
	ASSERT_OK(fw_snapshot_validate(s, &d));
	fw_arena_init(&b, 1);
	ASSERT_OK(fw_cycle_run(s, fw_policy_find("fairway"), &b, &p));
	ASSERT(is_started(p, g));
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 2);
	ASSERT_EQ(p->ndecisions, 5);
	ASSERT_OK(fw_plan_check(s, p, &b, &d));
	fw_arena_release(&b);
	fw_snapshot_free(s);
}

static void setup(void)
{
	fw_arena_init(&A, 0);
}

static void teardown(void)
{
	fw_arena_release(&A);
}

/* A queue's line is (priority descending, submit ascending, job index):
 * the order phase's radix sort when there are many jobs and the ranges
 * of priorities and submit times fit one 64-bit key, its comparison sort
 * otherwise.  Random lines of each kind, read back through `ahead` (the
 * waiting jobs ahead of each in its line) on a full node, checked against
 * qsort's ranking. */
static const struct fw_snapshot *line_snap;

static int line_cmp(const void *pa, const void *pb)
{
	int a = *(const int *)pa, b = *(const int *)pb;
	const struct fw_job *ja = &line_snap->jobs[a], *jb = &line_snap->jobs[b];

	if (ja->priority != jb->priority)
		return ja->priority > jb->priority ? -1 : 1;
	if (ja->submit_time != jb->submit_time)
		return ja->submit_time < jb->submit_time ? -1 : 1;
	return (a > b) - (a < b);
}

/* Jobs first .. first+n-1 sorted by cmp: how many of them does the plan
 * not put at that place in their line (pending `ahead`)?  -1: no memory. */
static int line_mismatches(const struct fw_snapshot *s, const struct fw_plan *p, int first, int n,
			   int (*cmp)(const void *, const void *))
{
	int *want = malloc((size_t)n * sizeof *want), bad = 0;

	if (!want)
		return -1;
	for (int k = 0; k < n; k++)
		want[k] = first + k;
	line_snap = s;
	qsort(want, (size_t)n, sizeof *want, cmp);
	for (int k = 0; k < n; k++)
		bad += fw_plan_pending_for(p, want[k])->ahead != k;
	free(want);
	return bad;
}

TEST(a_queue_line_is_priority_then_submit_then_index)
{
	uint32_t x = 2024;
	for (int round = 0; round < 4; round++) {
		struct fw_snapshot *s = fw_snapshot_new();
		const char *lv[] = { "rack" };
		tb_levels(s, 1, lv);
		tb_node(s, "n0", 8, NULL, "r0", NULL, NULL);
		int q = tb_queue(s, "q", -1, 8, -1, 1);
		int busy = tb_job(s, "busy", q, 1, 8, 1000, 0);
		s->jobs[busy].expected_runtime = 1000;
		tb_run(s, busy, 1, (int[]){ 0 }, 0xff);
		s->now = 100;
		bool wide = round % 2; /* ranges past 64 bits: the comparison sort */
		int first = s->njobs, n = round < 2 ? 40 : 9000; /* 9000: the radix sort, unless wide */
		for (int k = 0; k < n; k++) {
			char name[16];
			x ^= x << 13, x ^= x >> 17, x ^= x << 5;
			snprintf(name, sizeof name, "j%d", k);
			int j = tb_job(s, name, q, 1, 1, 1000, 0);
			s->jobs[j].priority = wide ? (k % 3 == 0 ? INT32_MIN : k % 3 == 1 ? INT32_MAX : (int32_t)x)
						   : (int32_t)(x % 3) - 1;
			s->jobs[j].submit_time = wide ? (k % 2 ? FW_TIME_MAX - (fw_time)(x % 5) : -FW_TIME_MAX + (fw_time)(x % 5))
						      : (fw_time)(x % 7) * 1000 - 3000;
		}
		struct fw_plan *p = run(s, NULL);
		ASSERT(p != NULL);
		ASSERT_EQ(line_mismatches(s, p, first, n, line_cmp), 0);
		fw_snapshot_free(s);
	}
}

/* Under an expansion-factor cap (policy.h xfactor_cap_s) a queue's line
 * is (priority descending, steps descending, submit, job index): v =
 * floor(256 * wait / r), r the runtime clamped to [60 s, cap] (unknown:
 * the cap), wait = now - submit; steps 0 for v = 0, else 1 + 16 * floor(
 * log2 v) + the 4 bits after v's top bit.  Written out here apart from
 * lib/cycle.c (by halving, not clz), and checked on both sorts. */
static fw_time line_cap;

static int64_t xf_steps(const struct fw_job *j)
{
	fw_time r = j->expected_runtime, wait = line_snap->now - j->submit_time;

	r = r <= 0 || r > line_cap ? line_cap : r < 60 ? 60 : r;
	if (wait <= 0)
		return 0;
	int64_t v = wait * 256 / r, e = 0, top = v; /* wait < 2^40 here */
	if (v == 0)
		return 0;
	while (top > 1)
		top /= 2, e++;
	/* v in [2^e, 2^(e+1)): its 4 bits after the top one */
	int64_t frac = e >= 4 ? (v - ((int64_t)1 << e)) / ((int64_t)1 << (e - 4))
			      : (v - ((int64_t)1 << e)) * ((int64_t)1 << (4 - e));
	return 1 + 16 * e + frac;
}

static int xf_cmp(const void *pa, const void *pb)
{
	int a = *(const int *)pa, b = *(const int *)pb;
	const struct fw_job *ja = &line_snap->jobs[a], *jb = &line_snap->jobs[b];
	int64_t xa = xf_steps(ja), xb = xf_steps(jb);

	if (ja->priority != jb->priority)
		return ja->priority > jb->priority ? -1 : 1;
	if (xa != xb)
		return xa > xb ? -1 : 1;
	if (ja->submit_time != jb->submit_time)
		return ja->submit_time < jb->submit_time ? -1 : 1;
	return (a > b) - (a < b);
}

/* Two 8-GPU nodes: n0 busy until 10000, n1 out of service now, back at
 * `back` (0: not known); a pending 8-GPU job w.  health: n1's. */
static struct fw_snapshot *coming_back(fw_time back, enum fw_health health, int *w)
{
	struct fw_snapshot *s = fw_snapshot_new();
	tb_node(s, "n0", 8, NULL, NULL, NULL, NULL);
	tb_node(s, "n1", 8, NULL, NULL, NULL, NULL);
	int q = tb_queue(s, "q", -1, 16, -1, 1);
	int busy = tb_job(s, "busy", q, 1, 8, 1000, 0);
	s->jobs[busy].expected_runtime = 10000;
	tb_run(s, busy, 1, (int[]){ 0 }, 0xff);
	*w = tb_job(s, "w", q, 1, 8, 1000, 0);
	s->jobs[*w].expected_runtime = 600;
	s->nodes[1].health = health;
	s->nodes[1].schedulable = health != FW_HEALTH_HEALTHY;
	s->nodes[1].back_at = back;
	s->now = 1000;
	return s;
}

/* Job w of plan p did not start, and is reserved at `at` on `node` (its
 * first task), its expected start then. */
static struct fw_decision *reserved_for(struct fw_plan *p, int w, fw_time at, int node)
{
	ASSERT(decision(p, w, FW_DECIDE_START) == NULL);
	struct fw_decision *r = decision(p, w, FW_DECIDE_RESERVE);
	ASSERT(r != NULL);
	ASSERT_EQ(r->at, at);
	if (node >= 0)
		ASSERT_EQ(p->allocs[r->alloc_first].node, node);
	ASSERT_EQ(pending_of(p, w)->expected_start, at);
	return r;
}

/* A node out of service now that is back at a known time (a maintenance
 * window's end: fw_node.back_at) is counted on from then: the waiting
 * job is reserved there and expected then, not at the busy node's end;
 * nothing starts on it now; the checker refuses a reservation on it
 * before it is back.  Not known, or later than the busy node: as before. */
TEST(a_node_coming_back_is_planned_for)
{
	static const struct {
		fw_time back;
		enum fw_health health;
		fw_time at;
		int node;
	} cases[] = {
		{ 1100, FW_HEALTH_HEALTHY, 1100, 1 },   /* cordoned (schedulable false), back at 1100 */
		{ 1100, FW_HEALTH_DRAINING, 1100, 1 },  /* an open maintenance window */
		{ 0, FW_HEALTH_HEALTHY, 10000, 0 },     /* not known: never counted on */
		{ 20000, FW_HEALTH_DRAINING, 10000, 0 }, /* back after n0 frees */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int w;
		struct fw_snapshot *s = coming_back(cases[i].back, cases[i].health, &w);
		struct fw_plan *p = run(s, NULL);
		ASSERT(p != NULL);
		struct fw_decision *r = reserved_for(p, w, cases[i].at, cases[i].node);
		if (cases[i].node == 1) { /* moved before the node is back: refused */
			struct fw_diag d;
			r->at = 1050;
			pending_of(p, w)->expected_start = 1050;
			ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
			ASSERT_STR_CONTAINS(d.msg, cases[i].health == FW_HEALTH_DRAINING ? "draining node n1"
											 : "unschedulable node n1");
		}
		fw_snapshot_free(s);
	}
	/* a back_at not after now is refused */
	int w;
	struct fw_snapshot *s = coming_back(1000, FW_HEALTH_DRAINING, &w);
	struct fw_diag d;
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_ERANGE);
	ASSERT_STR_CONTAINS(d.msg, "node n1 is back at t=1000, not after now (1000)");
	fw_snapshot_free(s);
}

/* Two 8-GPU nodes: n0 busy until 10000, n1 free now but leaving at 4600
 * (a maintenance window to come: fw_node.away_at) and back at `back` (0:
 * never); a pending 8-GPU job w of runtime `run` (0: unknown). */
static struct fw_snapshot *leaving(fw_time back, fw_time run_w, int *w)
{
	int w2;
	struct fw_snapshot *s = coming_back(0, FW_HEALTH_HEALTHY, &w2);

	s->nodes[1].schedulable = true;
	s->nodes[1].away_at = 4600;
	s->nodes[1].back_at = back;
	s->jobs[w2].expected_runtime = run_w;
	*w = w2;
	return s;
}

/* A node that leaves later (fw_node.away_at) takes only work that ends
 * by then; a job that would run into its departure is reserved, and
 * expected, from its return (or on the busy node, when that frees first
 * or the node never returns), never across the window.  Without
 * reservations (kai) such a job says why it waits (LEAVING, naming the
 * departure).  The checker refuses a start or a reservation that runs
 * into the departure. */
TEST(a_node_that_leaves_takes_only_work_that_ends_before)
{
	static const struct {
		fw_time run, back;
		bool starts;
		fw_time at;  /* its reservation's time */
		int node;
	} cases[] = {
		{ 3600, 8000, true, 0, 1 },      /* ends at 4600, as it leaves */
		{ 3601, 8000, false, 8000, 1 },  /* one second too long: at its return */
		{ 3601, 20000, false, 10000, 0 }, /* n0 frees before n1 returns */
		{ 3601, 0, false, 10000, 0 },    /* n1 never returns */
		{ 0, 8000, false, 8000, 1 },     /* no runtime: never ends by 4600 */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int w;
		struct fw_snapshot *s = leaving(cases[i].back, cases[i].run, &w);
		struct fw_plan *p = run(s, NULL);
		ASSERT(p != NULL);
		if (cases[i].starts) {
			ASSERT_EQ(node_of(p, w, 0), 1);
			fw_snapshot_free(s);
			continue;
		}
		struct fw_decision *r = reserved_for(p, w, cases[i].at, cases[i].node);
		struct fw_diag d;
		if (cases[i].node == 1) { /* moved into the window: refused */
			r->at = 1100;
			pending_of(p, w)->expected_start = 1100;
			ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
			ASSERT_STR_CONTAINS(d.msg, "job w at t=1100 runs into node n1's departure at t=4600");
		}
		/* no reservations: why it waits */
		ASSERT((p = run(s, "kai")) != NULL);
		ASSERT(decision(p, w, FW_DECIDE_START) == NULL);
		ASSERT_EQ(pending_of(p, w)->reason, FW_REASON_LEAVING);
		ASSERT_EQ(pending_of(p, w)->a, 4600);
		ASSERT_EQ(pending_of(p, w)->b, 3600);
		ASSERT_EQ(pending_of(p, w)->expected_start, cases[i].at);
		fw_snapshot_free(s);
	}
	/* a start into the departure is refused by the checker: the job that
	 * fits starts, then is made one second too long */
	int w;
	struct fw_snapshot *s = leaving(8000, 3600, &w);
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL && node_of(p, w, 0) == 1);
	s->jobs[w].expected_runtime = 3601;
	struct fw_diag d;
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "job w at t=1000 runs into node n1's departure at t=4600");
	/* leaving not after now, or back before it leaves: refused */
	s->nodes[1].away_at = 1000;
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_ERANGE);
	ASSERT_STR_CONTAINS(d.msg, "node n1 leaves at t=1000, not after now (1000)");
	s->nodes[1].away_at = 8000;
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_ERANGE);
	ASSERT_STR_CONTAINS(d.msg, "node n1 is back at t=8000, not after it leaves (t=8000)");
	/* under utc_times (a Unix clock: the daemon, Slurm, a dated plan
	 * --config) the same refusals write UTC dates */
	s->config.utc_times = true;
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_ERANGE);
	ASSERT_STR_CONTAINS(d.msg, "node n1 is back at 1970-01-01T02:13:20Z, not after it leaves (1970-01-01T02:13:20Z)");
	s->nodes[1].away_at = 1000;
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_ERANGE);
	ASSERT_STR_CONTAINS(d.msg, "node n1 leaves at 1970-01-01T00:16:40Z, not after now (1970-01-01T00:16:40Z)");
	s->nodes[1].away_at = 4600;
	ASSERT_OK(fw_snapshot_validate(s, &d));
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "job w at 1970-01-01T00:16:40Z runs into node n1's departure at 1970-01-01T01:16:40Z");
	ASSERT(strstr(d.msg, "t=") == NULL);
	s->config.utc_times = false;
	/* ignored on a node that takes no work now */
	s->nodes[1].schedulable = false;
	s->nodes[1].away_at = 2000;
	s->nodes[1].back_at = 0;
	ASSERT_OK(fw_snapshot_validate(s, &d));
	fw_snapshot_free(s);
}

/* The QA pass's solo.yaml: one 8-GPU node leaving at 1600 for a window
 * until 4600; a 4-GPU job of an hour (reserved from the window's end), a
 * 2-GPU job with no runtime, then a 1-GPU job of an hour. */
static struct fw_snapshot *solo_window(int *a, int *b, int *c)
{
	struct fw_snapshot *s = fw_snapshot_new();
	tb_node(s, "solo", 8, NULL, NULL, NULL, NULL);
	int q = tb_queue(s, "q", -1, 8, -1, 1);
	*a = tb_job(s, "a", q, 1, 4, 1000, 0);
	*b = tb_job(s, "b", q, 1, 2, 1000, 1);
	*c = tb_job(s, "c", q, 1, 1, 1000, 2);
	s->jobs[*a].expected_runtime = 3600;
	s->jobs[*c].expected_runtime = 3600;
	s->nodes[0].away_at = 1600;
	s->nodes[0].back_at = 4600;
	s->now = 1000;
	return s;
}

/* Why c's start is unknown there (the QA pass read "held by jobs with
 * no expected runtime" with no GPU in use): not running jobs, but b's
 * reservation, which the walk holds whole for ever (a reserved node is
 * held until its job ends, and b never does): UNKNOWN_RESERVED, with
 * c's GPUs and the one such reservation.  A running job with no runtime
 * that leaves no room still reads UNKNOWN_RUNTIME. */
TEST(an_unknown_start_behind_a_reservation_says_so)
{
	int a, b, c;
	struct fw_snapshot *s = solo_window(&a, &b, &c);
	struct fw_plan *p;
	char m[FW_REASON_TEXT_MAX];

	s->config.reserve_depth = 2; /* a and b reserved, c (tried last) not */
	s->jobs[c].priority = -1;
	ASSERT((p = run(s, NULL)) != NULL);
	ASSERT_EQ(pending_of(p, a)->reason, FW_REASON_HAS_RESERVATION);
	ASSERT_EQ(pending_of(p, b)->reason, FW_REASON_HAS_RESERVATION);
	const struct fw_pending *r = pending_of(p, c);
	ASSERT_EQ(r->expected_start, FW_TIME_UNKNOWN);
	ASSERT_EQ(r->unknown_why, FW_REASON_UNKNOWN_RESERVED);
	ASSERT_EQ(r->why_a, 1);
	ASSERT_EQ(r->why_b, 1);
	ASSERT_STR_CONTAINS(fw_reason_format(r->unknown_why, r->why_a, r->why_b, m, sizeof m),
			    "it needs 1 GPU, which no running job holds for ever, but the nodes with room for it are "
			    "reserved for 1 job with no expected runtime, held for ever from their reservation on");
	/* b running for ever on 7 GPUs: the running job is the reason */
	s->config.reserve_depth = 0;
	s->jobs[b].groups[0].gpus = 7;
	s->nodes[0].away_at = s->nodes[0].back_at = 0;
	tb_run(s, b, 1, (int[]){ 0 }, 0x7f);
	s->jobs[c].groups[0].gpus = 2;
	ASSERT((p = run(s, NULL)) != NULL);
	ASSERT_EQ(pending_of(p, c)->unknown_why, FW_REASON_UNKNOWN_RUNTIME);
	fw_snapshot_free(s);
}

/* A departure far ahead (a maintenance window next week) does not push a
 * gang's reservation past it: the gang is reserved before it when its run
 * ends by then, after the return when it does not.  n0 is busy until
 * 2000, n1 free but leaving at 100000, back at 110000; the gang needs
 * both nodes. */
TEST(a_departure_far_ahead_leaves_room_before_it)
{
	static const struct {
		fw_time run, at;
	} cases[] = { { 1000, 2000 }, { 98000, 2000 }, { 98001, 110000 }, { 0, 110000 } };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int g;
		struct fw_snapshot *s = coming_back(0, FW_HEALTH_HEALTHY, &g);
		s->nodes[1].schedulable = true;
		s->jobs[0].expected_runtime = 2000; /* busy, on n0 */
		s->jobs[g].groups[0].count = 2;     /* a gang of both nodes */
		s->jobs[g].expected_runtime = cases[i].run;
		s->nodes[1].away_at = 100000;
		s->nodes[1].back_at = 110000;
		struct fw_plan *p = run(s, NULL);
		ASSERT(p != NULL);
		reserved_for(p, g, cases[i].at, -1);
		/* moved into the window (a run of 98001 from 2000): refused */
		if (cases[i].at == 2000) {
			s->jobs[g].expected_runtime = 98001;
			struct fw_diag d;
			ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
			ASSERT_STR_CONTAINS(d.msg, "runs into node n1's departure at t=100000");
		}
		fw_snapshot_free(s);
	}
}

/* One 8-GPU node, full until 1000 s in, and its queue: the scene of the
 * line tests, whose waiting jobs all stay waiting. */
static struct fw_snapshot *full_node(int *q, fw_time now)
{
	struct fw_snapshot *s = fw_snapshot_new();
	tb_node(s, "n0", 8, NULL, NULL, NULL, NULL);
	*q = tb_queue(s, "q", -1, 8, -1, 1);
	int busy = tb_job(s, "busy", *q, 1, 8, 1000, 0);
	s->jobs[busy].expected_runtime = 1000;
	tb_run(s, busy, 1, (int[]){ 0 }, 0xff);
	s->now = now;
	return s;
}

TEST(a_queue_line_is_priority_then_expansion_factor_on_both_sorts)
{
	static const fw_time runtimes[] = { 0, 30, 600, 3600, 7200, 21600, 200000 };
	uint32_t x = 4242;
	for (int round = 0; round < 6; round++) {
		int q;
		struct fw_snapshot *s = full_node(&q, 2000000);
		/* rounds 0-1: fairway's own cap (6 h); 2-3: the config's 1 h; 4-5:
		 * the longest cap, a year, with waits up to 58 days */
		s->config.xfactor_cap_s = round < 2 ? 0 : round < 4 ? 3600 : 31536000;
		line_cap = round < 2 ? 43200 : s->config.xfactor_cap_s;
		int first = s->njobs, n = round % 2 ? 9000 : 40; /* 9000: the radix sort */
		for (int k = 0; k < n; k++) {
			char name[16];
			x ^= x << 13, x ^= x >> 17, x ^= x << 5;
			snprintf(name, sizeof name, "j%d", k);
			int j = tb_job(s, name, q, 1, 1, 1000, 0);
			s->jobs[j].priority = (int32_t)(x % 3) - 1;
			s->jobs[j].expected_runtime = runtimes[(x >> 4) % 7];
			s->jobs[j].submit_time = s->now - (fw_time)((x >> 8) % (round >= 4 ? 5000000 : 40000)) + 100;
		}
		struct fw_plan *p = run(s, NULL);
		ASSERT(p != NULL);
		ASSERT_EQ(line_mismatches(s, p, first, n, xf_cmp), 0);
		fw_snapshot_free(s);
	}
}

/* A short job passes a longer one submitted before it once it has waited a
 * like share of its length; not with the order off (config < 0), not past
 * a higher priority, and not under kai, whose order stays submit time. */
TEST(a_short_job_passes_a_long_one_by_expansion_factor)
{
	for (int round = 0; round < 5; round++) {
		struct fw_snapshot *s = fw_snapshot_new();
		tb_node(s, "n0", 8, NULL, NULL, NULL, NULL);
		int q = tb_queue(s, "q", -1, 8, -1, 1);
		int busy = tb_job(s, "busy", q, 1, 7, 1000, 0);
		s->jobs[busy].expected_runtime = 100000;
		s->jobs[busy].priority = 5; /* never preempted for either */
		tb_run(s, busy, 1, (int[]){ 0 }, 0x7f);
		int lng = tb_job(s, "long", q, 1, 1, 1000, 0);
		int shrt = tb_job(s, "short", q, 1, 1, 1000, 1000);
		/* long: 6 h, or unknown (the cap); short: 10 min */
		s->jobs[lng].expected_runtime = round == 4 ? 0 : 21600;
		s->jobs[shrt].expected_runtime = 600;
		/* now 1400: short waited 400 s (v 170), long 1400 s (v 16) */
		s->now = 1400;
		if (round == 1)
			s->config.xfactor_cap_s = -1;
		if (round == 2)
			s->jobs[lng].priority = 1;
		struct fw_plan *p = run(s, round == 3 ? "kai" : NULL);
		ASSERT(p != NULL);
		bool short_first = round == 0 || round == 4;
		ASSERT(decision(p, short_first ? shrt : lng, FW_DECIDE_START) != NULL);
		ASSERT(decision(p, short_first ? lng : shrt, FW_DECIDE_START) == NULL);
		fw_snapshot_free(s);
	}
}

/* fifo's line comes from its job_before callback (cycle.c sort_jobs),
 * which merges sorted halves and sorts short runs by insertion: submit
 * order, ties by index, whether the jobs arrive sorted (as a simulator's
 * do), reversed or shuffled, in runs shorter and longer than 16. */
static int fifo_cmp(const void *pa, const void *pb)
{
	int a = *(const int *)pa, b = *(const int *)pb;
	const struct fw_job *ja = &line_snap->jobs[a], *jb = &line_snap->jobs[b];

	if (ja->submit_time != jb->submit_time)
		return ja->submit_time < jb->submit_time ? -1 : 1;
	return (a > b) - (a < b);
}

TEST(fifo_line_is_submit_then_index_however_the_jobs_arrive)
{
	uint32_t x = 77;
	for (int round = 0; round < 9; round++) {
		int q;
		struct fw_snapshot *s = full_node(&q, 100000);
		int first = s->njobs, n = (int[]){ 5, 16, 17, 300 }[round % 4], shape = round % 3;
		for (int k = 0; k < n; k++) {
			char name[16];
			x ^= x << 13, x ^= x >> 17, x ^= x << 5;
			snprintf(name, sizeof name, "j%d", k);
			int j = tb_job(s, name, q, 1, 1, 1000, 0);
			s->jobs[j].priority = (int32_t)(x % 5); /* fifo ignores it */
			s->jobs[j].submit_time = shape == 0 ? k * 10 + (fw_time)(x % 3) * 10 /* sorted, with ties */
						 : shape == 1 ? (n - k) * 10 : (fw_time)(x % 40) * 10;
		}
		struct fw_plan *p = run(s, "fifo");
		ASSERT(p != NULL);
		ASSERT_EQ(line_mismatches(s, p, first, n, fifo_cmp), 0);
		fw_snapshot_free(s);
	}
}

/* ---- GPU model limits (lib/modellimit.c) ------------------------------ */

static int model_limit(struct fw_snapshot *s, int q, const char *model, double gpus)
{
	struct fw_model_limit m = tb_model_entry(q, model, gpus);
	return fw_snapshot_add_model_limit(s, &m);
}

/* Four H100 nodes and one A100 node (c0, node 4), queue q capped at 8
 * H100s: a job naming H100 counts against it, one naming A100 does not. */
TEST(a_model_limit_caps_the_jobs_that_name_its_model)
{
	struct fw_snapshot *s = two_racks();
	tb_node(s, "c0", 8, "A100", "rc", NULL, NULL);
	model_limit(s, 0, "H100", 8);
	int h1 = tb_named(s, tb_job(s, "h1", 0, 1, 8, 1000, 0), "H100");
	int h2 = tb_named(s, tb_job(s, "h2", 0, 1, 4, 1000, 1), "H100");
	int a1 = tb_named(s, tb_job(s, "a1", 0, 1, 4, 1000, 2), "A100");
	struct fw_plan *p = run(s, NULL);
	char m[FW_REASON_TEXT_MAX];
	ASSERT(p != NULL);
	ASSERT(start_of(p, h1) != NULL);
	ASSERT(node_of(p, a1, 0) == 4);
	const struct fw_pending *w = fw_plan_pending_for(p, h2);
	ASSERT_EQ(w->reason, FW_REASON_MODEL_LIMIT);
	ASSERT_EQ(w->a, 4000);
	ASSERT_EQ(w->b, 0); /* limit 0 */
	ASSERT_EQ(w->expected_start, FW_TIME_UNKNOWN);
	ASSERT_EQ(w->unknown_why, FW_REASON_MODEL_LIMIT);
	ASSERT_STR_CONTAINS(fw_reason_format_job(s, h2, w->reason, w->a, w->b, m, sizeof m),
			    "would put queue q 4 GPUs over its limit of 8 H100 GPUs");
	ASSERT_STR_CONTAINS(fw_reason_format(w->reason, w->a, w->b, m, sizeof m), "4 GPUs over its limit on a GPU model");
	/* without the limit h2 starts too */
	s->nmodel_limits = 0;
	p = run(s, NULL);
	ASSERT(p != NULL && start_of(p, h2) != NULL);
	fw_snapshot_free(s);
}

/* A job that names no model, when its queue's H100 limit would not hold
 * it, goes on the A100s; a second one, with the A100s full and the
 * limit still short, waits for the limit, not for capacity. */
TEST(a_job_naming_no_model_goes_where_its_limits_hold)
{
	struct fw_snapshot *s = two_racks();
	int c0 = tb_node(s, "c0", 8, "A100", "rc", NULL, NULL);
	int n0[] = { 0 };
	model_limit(s, 0, "H100", 6);
	int r = tb_job(s, "run", 0, 1, 4, 1000, 0);
	tb_run(s, r, 1, n0, 0x0f);
	int big = tb_job(s, "big", 0, 1, 4, 1000, 1);
	int small = tb_job(s, "small", 0, 1, 4, 1000, 2);
	int tiny = tb_job(s, "tiny", 0, 1, 2, 1000, 3);
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(node_of(p, big, 0), c0); /* on a0 (the busiest) but for the limit */
	ASSERT_EQ(node_of(p, small, 0), c0);
	ASSERT_EQ(node_of(p, tiny, 0), 0); /* 4 + 2 H100s: within the limit */
	/* one more: the A100s are full, H100s free, the limit short */
	int late = tb_job(s, "late", 0, 1, 2, 1000, 4);
	p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT(start_of(p, late) == NULL);
	ASSERT_EQ(fw_plan_pending_for(p, late)->reason, FW_REASON_MODEL_LIMIT);
	ASSERT_EQ(fw_plan_pending_for(p, late)->a, 2000);
	s->model_limits[0].gpus = 8000;
	p = run(s, NULL);
	ASSERT(p != NULL && start_of(p, late) != NULL);
	fw_snapshot_free(s);
}

/* A parent's limit counts every queue under it; a job of another model
 * in the same line is not held by it. */
/* A fleet with no GPU model at all (CPU nodes): a model limit closes
 * nothing, so a GPU job waits for the capacity's reason, never with
 * none (found by tests/fuzz/fuzz_cycle.c: the gate refused it and said
 * nothing). */
TEST(a_model_limit_on_a_fleet_without_gpus_leaves_the_capacity_reason)
{
	struct fw_snapshot *s = fw_snapshot_new();
	tb_node(s, "c0", 0, "", NULL, NULL, NULL);
	tb_queue(s, "q", -1, 8, -1, 1);
	model_limit(s, 0, "H100", 0);
	int j = tb_job(s, "j", 0, 1, 2, 1000, 0);
	for (const char *const *pol = fw_policy_names(); *pol; pol++) {
		struct fw_plan *p = run(s, *pol);
		ASSERT(p != NULL); /* the checker passed: every waiting job has a reason */
		const struct fw_pending *w = fw_plan_pending_for(p, j);
		ASSERT_EQ(w->reason, FW_REASON_GANG_NO_FIT); /* no node has the GPUs */
		ASSERT_EQ(w->expected_start, FW_TIME_UNKNOWN);
		ASSERT_EQ(w->unknown_why, FW_REASON_NEVER_FITS);
	}
	fw_snapshot_free(s);
}

TEST(a_parent_model_limit_counts_its_children)
{
	struct fw_snapshot *s = two_racks();
	tb_node(s, "c0", 8, "A100", "rc", NULL, NULL);
	int org = tb_queue(s, "org", -1, 32, -1, 1);
	int c1 = tb_queue(s, "c1", org, 8, -1, 1), c2 = tb_queue(s, "c2", org, 8, -1, 1);
	model_limit(s, c1, "H100", 0);
	int lim = model_limit(s, org, "A100", 4);
	int x = tb_named(s, tb_job(s, "x", c1, 1, 4, 1000, 0), "A100");
	int y = tb_named(s, tb_job(s, "y", c2, 1, 2, 1000, 1), "A100");
	int z = tb_named(s, tb_job(s, "z", c2, 1, 2, 1000, 2), "H100");
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT(start_of(p, x) != NULL);
	ASSERT(start_of(p, z) != NULL);
	ASSERT_EQ(fw_plan_pending_for(p, y)->reason, FW_REASON_MODEL_LIMIT);
	ASSERT_EQ(fw_plan_pending_for(p, y)->b, lim);
	/* the checker counts a child's start against its parent's limit */
	struct fw_diag d;
	s->model_limits[lim].gpus = 2000;
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "queue org is over its limit on GPU model A100: 4000 > 2000 milli-GPU");
	fw_snapshot_free(s);
}

/* A gang naming no model, limited to no H100s, is reserved on the A100s
 * for when they free, not started on the idle H100s. */
TEST(a_reservation_keeps_to_the_models_a_limit_leaves)
{
	struct fw_snapshot *s = two_racks();
	int c[] = { tb_node(s, "c0", 8, "A100", "rc", NULL, NULL), tb_node(s, "c1", 8, "A100", "rc", NULL, NULL) };
	int other = tb_queue(s, "other", -1, 0, -1, 1);
	model_limit(s, 0, "H100", 0);
	s->now = 100;
	int r = tb_job(s, "run", other, 2, 8, 1000, 0);
	tb_run(s, r, 2, c, 0xff);
	s->jobs[r].expected_runtime = 1000;
	int g = tb_job(s, "gang", 0, 2, 8, 1000, 1);
	s->jobs[g].expected_runtime = 100;
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT(decision(p, g, FW_DECIDE_START) == NULL);
	struct fw_decision *d = decision(p, g, FW_DECIDE_RESERVE);
	ASSERT(d != NULL);
	ASSERT_EQ(d->at, 1000);
	ASSERT(p->allocs[d->alloc_first].node >= c[0]);
	ASSERT(p->allocs[d->alloc_first + 1].node >= c[0]);
	ASSERT_EQ(fw_plan_pending_for(p, g)->expected_start, 1000);
	fw_snapshot_free(s);
}

/* Reclaim for a queue limited to A100s evicts on the A100 node, though
 * the job there has run longest (the costliest to evict otherwise). */
TEST(reclaim_under_a_model_limit_frees_an_allowed_model)
{
	struct fw_snapshot *s = fw_snapshot_new();
	int n[3] = { tb_node(s, "h0", 8, "H100", NULL, NULL, NULL), tb_node(s, "h1", 8, "H100", NULL, NULL, NULL),
		     tb_node(s, "a0", 8, "A100", NULL, NULL, NULL) };
	int lim = tb_queue(s, "lim", -1, 16, -1, 1);
	int other = tb_queue(s, "other", -1, 0, -1, 1);
	s->now = 10000;
	int v[3];
	for (int i = 0; i < 3; i++) {
		char nm[8];
		snprintf(nm, sizeof nm, "v%d", i);
		v[i] = tb_job(s, nm, other, 1, 8, 1000, 0);
		tb_run(s, v[i], 1, &n[i], 0xff);
		s->jobs[v[i]].preemptible = true;
		s->jobs[v[i]].start_time = i == 2 ? 0 : 9000; /* a0's job: the most work lost */
	}
	int j = tb_job(s, "j", lim, 1, 8, 1000, 1);
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT(decision(p, j, FW_DECIDE_START) != NULL);
	ASSERT(decision(p, v[2], FW_DECIDE_EVICT) == NULL); /* unlimited: a cheaper H100 victim */
	model_limit(s, lim, "H100", 0);
	p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(node_of(p, j, 0), n[2]);
	ASSERT(decision(p, v[2], FW_DECIDE_EVICT) != NULL);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 1);
	fw_snapshot_free(s);
}

/* Random fleets of H100 and A100 nodes with limits on both models, in
 * queues and their parent, preemptible jobs, some naming a model: every
 * policy's plan passes the checker (which recounts each limit) and is the
 * same twice; the limits both start jobs and hold some back. */
TEST(random_model_limits_keep_every_invariant)
{
	int held = 0, started = 0;
	for (uint32_t seed = 1; seed <= 40; seed++) {
		struct fw_snapshot *s = random_snapshot(seed);
		model_limit(s, 0, "H100", 40);
		model_limit(s, 1, "H100", 10);
		model_limit(s, 2, "A100", 6);
		model_limit(s, 2, "H100", 12);
		for (int32_t j = 0; j < s->njobs; j++) {
			s->jobs[j].preemptible = j % 3 == 0;
			if (j % 7 == 1 && s->jobs[j].state == FW_JOB_PENDING)
				tb_named(s, j, j % 2 ? "A100" : "H100");
		}
		const char *pols[] = { "fairway", "kai", "slurm" };
		for (int k = 0; k < 3; k++) {
			struct fw_plan *p = run(s, pols[k]);
			ASSERT(p != NULL);
			for (int i = 0; i < p->npending; i++)
				held += p->pending[i].reason == FW_REASON_MODEL_LIMIT;
			started += count_kind(p, FW_DECIDE_START);
			same_plan_again(s, pols[k], p);
		}
		fw_snapshot_free(s);
	}
	ASSERT(held > 40);
	ASSERT(started > 200);
}

TEST(model_limits_are_validated)
{
	struct fw_snapshot *s = two_racks();
	struct fw_diag d;
	model_limit(s, 0, "H100", 8);
	ASSERT_OK(fw_snapshot_validate(s, &d));
	model_limit(s, 0, "H100", 4);
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_EEXIST);
	ASSERT_STR_CONTAINS(d.msg, "two limits on GPU model H100");
	ASSERT_STR_EQ(d.field, "model_limits[1]");
	s->model_limits[1].model[0] = 0;
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_EINVAL);
	snprintf(s->model_limits[1].model, FW_NAME_MAX, "A100");
	s->model_limits[1].gpus = -1;
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_ERANGE);
	s->model_limits[1].gpus = 0;
	ASSERT_OK(fw_snapshot_validate(s, &d));
	s->model_limits[1].queue = 1;
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_ENOENT);
	s->model_limits[1].queue = 0;
	for (int i = 0; i < FW_MAX_LIMITED_MODELS; i++) {
		char nm[16], md[16];
		snprintf(nm, sizeof nm, "m%d", i);
		snprintf(md, sizeof md, "M%d", i);
		tb_node(s, nm, 1, md, "rm", NULL, NULL);
	}
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_ERANGE); /* 65 models */
	ASSERT_STR_CONTAINS(d.msg, "more than 64 GPU models");
	s->nmodel_limits = 0;
	ASSERT_OK(fw_snapshot_validate(s, &d));
	fw_snapshot_free(s);
}

/* Consolidation moves two of q's jobs for another queue's gang; moved,
 * they count once against q's H100 limit, so q's next job, which the
 * limit holds exactly, still starts in the same plan. */
TEST(moved_jobs_count_once_against_their_model_limit)
{
	struct fw_snapshot *s = fragmented_case();
	int g = 4, n4 = tb_node(s, "n4", 4, NULL, NULL, NULL, NULL);
	int gq = tb_queue(s, "gq", -1, 16, -1, 1);
	s->queues[0].deserved.v[FW_RES_GPU] = 16000;
	s->jobs[g].queue = gq;
	model_limit(s, 0, "H100", 20);
	int w = tb_named(s, tb_job(s, "w", 0, 1, 4, 1000, 6000), "H100");
	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT(is_started(p, g));
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 2);
	ASSERT(is_started(p, w));
	(void)n4;
	s->model_limits[0].gpus = 19000; /* one short: w waits */
	p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT(is_started(p, g));
	ASSERT_EQ(fw_plan_pending_for(p, w)->reason, FW_REASON_MODEL_LIMIT);
	fw_snapshot_free(s);
}

/* A moved job restarts on the GPU model it left: v2 and v3 run on A100
 * nodes, and the only room for them is half of an H100 node, which q's
 * H100 limit does not hold; so nothing moves (with one A100 half free,
 * still not both), and the checker, which recounts the limit, agrees. */
TEST(a_moved_job_stays_on_its_gpu_model)
{
	struct fw_snapshot *s = fragmented_case();
	int g = 4, n4 = tb_node(s, "n4", 8, "A100", NULL, NULL, NULL);
	int gq = tb_queue(s, "gq", -1, 16, -1, 1);
	s->queues[0].deserved.v[FW_RES_GPU] = 16000;
	snprintf(s->nodes[2].gpu_model, FW_NAME_MAX, "A100");
	snprintf(s->nodes[3].gpu_model, FW_NAME_MAX, "A100");
	s->jobs[g].queue = gq;
	model_limit(s, 0, "H100", 8);
	int f = tb_job(s, "fill", 0, 1, 4, 1000, 0); /* n4's other half */
	tb_run(s, f, 1, &n4, 0xf0);
	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL);
	for (int i = 0; i < p->ndecisions; i++) {
		const struct fw_decision *d = &p->decisions[i];
		if (d->kind != FW_DECIDE_START || s->jobs[d->job].state != FW_JOB_RUNNING)
			continue;
		int was = s->allocs[s->jobs[d->job].alloc_first].node, now = p->allocs[d->alloc_first].node;
		ASSERT_STR_EQ(s->nodes[was].gpu_model, s->nodes[now].gpu_model);
	}
	ASSERT(!is_started(p, g));
	/* without the limit the two move to the H100 halves, and the gang starts */
	s->nmodel_limits = 0;
	p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT(is_started(p, g));
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 2);
	fw_snapshot_free(s);
}

static void user_usage(struct fw_snapshot *s, int q, const char *user, double gpu_hours, fw_time at)
{
	struct fw_user_usage u = { .queue = q, .usage = gpu_hours * 3600, .usage_at = at };
	snprintf(u.user, sizeof u.user, "%s", user);
	ASSERT(fw_snapshot_add_user_usage(s, &u) >= 0);
}

/* Past use counts beside the GPUs held now: two free nodes, alice and bob
 * with two 8-GPU jobs each, alice's first.  With nothing recorded they
 * alternate (alice, bob); alice's 100 GPU-hours of last week put bob's
 * two first; decayed over four more half-lives they weigh less than a
 * job of 8 GPUs ahead, and they alternate again; entries of one user add
 * up; usage weight 0 turns it off; another queue's usage does not count. */
TEST(users_past_use_counts_in_their_turns)
{
	struct fw_snapshot *s = two_racks();
	int n0[] = { 0 }, n1[] = { 1 }, job[4];
	const char *who[] = { "alice", "alice", "bob", "bob" };
	int other = tb_queue(s, "other", -1, 0, -1, 1);
	int fill = tb_job(s, "fill", other, 2, 8, 1000, 0);
	int both[] = { 0, 1 };

	(void)n0, (void)n1;
	tb_run(s, fill, 2, both, 0xff);
	for (int i = 0; i < 4; i++) {
		char nm[16];
		snprintf(nm, sizeof nm, "%s%d", who[i], i);
		job[i] = tb_job(s, nm, 0, 1, 8, 1000, 10 * i);
		snprintf(s->jobs[job[i]].user, sizeof s->jobs[job[i]].user, "%s", who[i]);
	}
	s->now = 7 * 86400;
	s->config.user_fair_share = true;
	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL);
	for (int i = 0; i < 4; i++) /* alice0, bob2 */
		ASSERT_EQ(start_of(p, job[i]) != NULL, i == 0 || i == 2);
	user_usage(s, 0, "alice", 100, 0); /* a week ago: 50 GPU-hours now, ~0.21 GPUs over a week */
	p = run(s, "fairway");
	ASSERT(p != NULL);
	for (int i = 0; i < 4; i++) /* alice0 holds her past, bob's first is ahead; then bob3 (8 + 0) vs alice0 (0.2) */
		ASSERT_EQ(start_of(p, job[i]) != NULL, i == 0 || i == 2);
	s->user_usage[0].usage = 2000 * 3600.0; /* 1,000 GPU-hours now: ~4.1 GPUs over a week */
	p = run(s, "fairway");
	ASSERT(p != NULL);
	for (int i = 0; i < 4; i++) /* still under bob's 8 held by his first: alice0, bob2 */
		ASSERT_EQ(start_of(p, job[i]) != NULL, i == 0 || i == 2);
	user_usage(s, 0, "alice", 2000, 0); /* entries add up: ~8.3 GPUs > 8: bob's two first */
	p = run(s, "fairway");
	ASSERT(p != NULL);
	for (int i = 0; i < 4; i++)
		ASSERT_EQ(start_of(p, job[i]) != NULL, i >= 2);
	s->config.usage_weight = 0; /* off: as with nothing recorded */
	p = run(s, "fairway");
	ASSERT(p != NULL);
	for (int i = 0; i < 4; i++)
		ASSERT_EQ(start_of(p, job[i]) != NULL, i == 0 || i == 2);
	s->config.usage_weight = 1;
	s->user_usage[0].queue = s->user_usage[1].queue = other; /* another queue's: not counted */
	p = run(s, "fairway");
	ASSERT(p != NULL);
	for (int i = 0; i < 4; i++)
		ASSERT_EQ(start_of(p, job[i]) != NULL, i == 0 || i == 2);
	s->user_usage[0].queue = s->user_usage[1].queue = 0;
	s->now += 28 * 86400; /* four half-lives later: ~0.5 GPU */
	p = run(s, "fairway");
	ASSERT(p != NULL);
	for (int i = 0; i < 4; i++)
		ASSERT_EQ(start_of(p, job[i]) != NULL, i == 0 || i == 2);
	s->user_usage[0].usage = -1;
	struct fw_diag d;
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_ERANGE);
	ASSERT_STR_EQ(d.field, "user_usage[0]");
	s->user_usage[0].usage = 0;
	s->user_usage[0].queue = 9;
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_ENOENT);
	fw_snapshot_free(s);
}

/* A user's past use in one queue does not follow the user into another:
 * alice used much in A, none in B; one node for each queue's line. */
TEST(users_past_use_stays_in_its_queue)
{
	struct fw_snapshot *s = fw_snapshot_new();
	tb_node(s, "n0", 8, NULL, NULL, NULL, NULL);
	tb_node(s, "n1", 8, NULL, NULL, NULL, NULL);
	int qa = tb_queue(s, "A", -1, 8, -1, 1), qb = tb_queue(s, "B", -1, 8, -1, 1);
	const char *who[] = { "alice", "bob" };
	int a[2], b[2];
	for (int i = 0; i < 2; i++) {
		char nm[16];
		snprintf(nm, sizeof nm, "a-%s", who[i]);
		a[i] = tb_job(s, nm, qa, 1, 8, 1000, i);
		snprintf(nm, sizeof nm, "b-%s", who[i]);
		b[i] = tb_job(s, nm, qb, 1, 8, 1000, 2 + i);
		snprintf(s->jobs[a[i]].user, FW_NAME_MAX, "%s", who[i]);
		snprintf(s->jobs[b[i]].user, FW_NAME_MAX, "%s", who[i]);
	}
	s->now = 1000;
	s->config.user_fair_share = true;
	user_usage(s, qa, "alice", 10000, 1000);
	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT(start_of(p, a[1]) != NULL && start_of(p, a[0]) == NULL); /* A: bob first */
	ASSERT(start_of(p, b[0]) != NULL && start_of(p, b[1]) == NULL); /* B: alice first, as in its line */
	fw_snapshot_free(s);
}

/* ---- estimates that count the jobs ahead (config.estimate_depth) ------ */

/* One 4-GPU node, each GPU busy until 100, 200, 300, 400 (now 0); six
 * 1-GPU jobs of 250 s wait, w0 first, no reservations. */
static struct fw_snapshot *six_behind_a_full_node(int *w)
{
	struct fw_snapshot *s = fw_snapshot_new();
	tb_node(s, "n0", 4, NULL, NULL, NULL, NULL);
	tb_queue(s, "q", -1, 4, -1, 1);
	s->now = 0;
	s->config.reserve_depth = -1;
	for (int i = 0; i < 4; i++) {
		char n[8];
		snprintf(n, sizeof n, "r%d", i);
		int r = tb_job(s, n, 0, 1, 1, 1000, 0), n0 = 0;
		tb_run(s, r, 1, &n0, 1u << i);
		s->jobs[r].expected_runtime = 100 * (i + 1);
	}
	for (int i = 0; i < 6; i++) {
		char n[8];
		snprintf(n, sizeof n, "w%d", i);
		w[i] = tb_job(s, n, 0, 1, 1, 1000, 0);
		s->jobs[w[i]].expected_runtime = 250;
	}
	return s;
}

/* Each job ahead takes its place in the estimate walk: w0 the GPU freed
 * at 100, w1 200, w2 300, w3 w0's at 350 (100 + 250), w4 400, w5 w1's at
 * 450.  With depth 0 (-1: none) all six read the shape's 100. */
TEST(estimates_count_the_jobs_ahead)
{
	int w[6];
	const fw_time want[6] = { 100, 200, 300, 350, 400, 450 };
	struct fw_snapshot *s = six_behind_a_full_node(w);
	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL);
	for (int i = 0; i < 6; i++) {
		ASSERT(pending_of(p, w[i])->reason != FW_REASON_HAS_RESERVATION);
		ASSERT_EQ(pending_of(p, w[i])->expected_start, want[i]);
	}
	ASSERT(tb_replans_same(s, "fairway", p, &A));
	s->config.estimate_depth = -1; /* the shape alone: today's rule */
	p = run(s, "fairway");
	ASSERT(p != NULL);
	for (int i = 0; i < 6; i++)
		ASSERT_EQ(pending_of(p, w[i])->expected_start, 100);
	struct fw_diag d;
	s->config.estimate_depth = FW_ESTIMATE_DEPTH_MAX + 1; /* refused, naming the field */
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_ERANGE);
	ASSERT(strstr(d.field, "estimate_depth") != NULL);
	fw_snapshot_free(s);
}

/* Past the depth a job keeps its shape's estimate, but no earlier than
 * the latest held job of its shape (tried before it): depth 3 holds w0,
 * w1, w2 at 100, 200, 300; w3..w5 read 300, not 100. */
TEST(a_job_past_the_estimate_depth_waits_for_its_shape_ahead)
{
	int w[6];
	const fw_time want[6] = { 100, 200, 300, 300, 300, 300 };
	struct fw_snapshot *s = six_behind_a_full_node(w);
	s->config.estimate_depth = 3;
	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL);
	for (int i = 0; i < 6; i++)
		ASSERT_EQ(pending_of(p, w[i])->expected_start, want[i]);
	/* a 2-GPU job behind them is another shape: its own walk's 200
	 * (two GPUs free once r0 and r1 end), not floored by theirs */
	int big = tb_job(s, "big", 0, 1, 2, 1000, 0);
	s->jobs[big].expected_runtime = 250;
	p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT_EQ(pending_of(p, big)->expected_start, 200);
	fw_snapshot_free(s);
}

/* A job ahead with no expected end holds its GPU for ever: the job
 * behind it waits for the next one to free. */
TEST(a_job_ahead_without_a_runtime_holds_its_place_for_ever)
{
	int w[6];
	struct fw_snapshot *s = six_behind_a_full_node(w);
	s->jobs[w[0]].expected_runtime = 0;
	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL);
	ASSERT_EQ(pending_of(p, w[0])->expected_start, 100);
	ASSERT_EQ(pending_of(p, w[1])->expected_start, 200);
	ASSERT_EQ(pending_of(p, w[2])->expected_start, 300);
	ASSERT_EQ(pending_of(p, w[3])->expected_start, 400);
	ASSERT_EQ(pending_of(p, w[4])->expected_start, 450); /* w1's, 200 + 250 */
	ASSERT_EQ(pending_of(p, w[5])->expected_start, 550); /* w2's */
	fw_snapshot_free(s);
}

/* The jobs ahead change estimates only: on random clusters, under each
 * policy, the decisions are byte for byte those without them, every
 * plan passes the checker (tb_plan), a job's estimate is known at one
 * depth when it is at the other (but for an unknown_reserved one, which
 * the jobs ahead may place before its reservation), and a gang's is the
 * same; on some cluster some estimate differs. */
TEST(estimates_ahead_never_change_decisions)
{
	const char *pols[] = { "fairway", "slurm", "kai", "fifo" };
	int later = 0;

	for (uint32_t seed = 1; seed <= 12; seed++) {
		for (int k = 0; k < 4; k++) {
			struct fw_snapshot *s = random_snapshot(seed);
			s->config.starve_after_s = -1; /* the gang profile aside */
			s->config.estimate_depth = -1;
			s->config.backfill_conservative = seed % 2; /* reservations one after another on a node */
			struct fw_plan *p = run(s, pols[k]);
			ASSERT(p != NULL);
			int32_t nd = p->ndecisions, np = p->npending;
			struct fw_decision *dec = malloc(sizeof *dec * (size_t)(nd + 1));
			struct fw_pending *pen = malloc(sizeof *pen * (size_t)(np + 1));
			ASSERT(dec && pen);
			memcpy(dec, p->decisions, sizeof *dec * (size_t)nd);
			memcpy(pen, p->pending, sizeof *pen * (size_t)np);
			s->config.estimate_depth = (int32_t)(1 + seed % 3 * 50);
			p = run(s, pols[k]);
			ASSERT(p != NULL);
			ASSERT_EQ(p->ndecisions, nd);
			ASSERT_OK(memcmp(dec, p->decisions, sizeof *dec * (size_t)nd));
			ASSERT_EQ(p->npending, np);
			for (int32_t i = 0; i < np; i++) {
				const struct fw_pending *a = &pen[i], *b = &p->pending[i];
				ASSERT_EQ(a->job, b->job);
				/* known without the jobs ahead: known with them; unknown
				 * without them, known with them only when a reservation
				 * for a job with no end held its nodes (the walk of the
				 * jobs ahead runs it before that reservation) */
				if (a->expected_start == FW_TIME_UNKNOWN && b->expected_start != FW_TIME_UNKNOWN)
					ASSERT_EQ(a->unknown_why, FW_REASON_UNKNOWN_RESERVED);
				else
					ASSERT_EQ(a->expected_start == FW_TIME_UNKNOWN, b->expected_start == FW_TIME_UNKNOWN);
				if (fw_job_tasks(&s->jobs[a->job]) > 1)
					ASSERT_EQ(b->expected_start, a->expected_start);
				later += b->expected_start != a->expected_start;
			}
			free(dec);
			free(pen);
			fw_snapshot_free(s);
		}
	}
	ASSERT(later > 0);
}

#define TESTS a_reserved_job_says_preemption_was_not_tried, a_reserved_job_says_reclaim_was_not_tried, reclaim_gathers_victims_per_node_when_the_global_pick_fails, reclaim_fallback_keeps_the_node_that_loses_the_least_work, single_gpu_jobs_bin_pack_onto_the_busiest_node, a_node_coming_back_is_planned_for, a_node_that_leaves_takes_only_work_that_ends_before, a_departure_far_ahead_leaves_room_before_it, gang_waits_rather_than_starting_partially, \
	min_member_lets_part_of_a_gang_start, required_topology_is_never_violated, \
	a_gang_too_big_for_its_required_level_blames_the_level, \
	preferred_level_picks_the_smallest_domain_that_fits, fractional_gpus_pack_onto_a_shared_gpu, \
	gpu_model_constraint, queue_limit_is_never_exceeded, an_over_quota_job_is_expected_when_its_queue_frees_the_limit, a_smaller_job_under_a_limit_gets_in_first_and_holds_the_larger_back, \
	an_over_quota_job_waits_for_its_parents_limit, an_over_quota_job_waits_for_the_holders_ahead_and_every_limit, a_small_job_is_expected_in_the_room_before_a_big_one_starts, the_limit_holders_are_answered_in_time_order, every_over_quota_job_gets_an_estimate, a_job_far_down_a_limit_gets_the_exact_room_before_a_later_holder, a_job_under_two_limits_waits_until_both_have_room, \
	 jobs_behind_a_strict_line_count_the_queue_limit, fair_share_splits_by_weight, \
	three_level_fair_share_with_limits, fifo_blocks_at_the_head_of_the_line, max_starts_budget, max_starts_budget_counts_starts_not_reservations, \
	random_snapshots_keep_every_invariant_and_are_deterministic, policy_names_follow_the_registry, \
	reason_texts_count_one_in_the_singular, gpu_model_reason_names_the_model, \
	checker_catches_an_over_committed_gpu, \
	checker_refuses_decisions_that_point_outside, \
	checker_catches_a_partial_gang_and_a_missing_reason, checker_names_every_broken_rule, \
	reservations_walk_the_ends_in_time_order_however_many, \
	out_of_memory_fails_cleanly_at_every_step, \
	easy_backfill_never_delays_the_reserved_gang, a_fractional_gang_of_more_tasks_than_gpus_is_reserved, kai_has_no_reservations_so_the_long_job_jumps_ahead, \
	checker_catches_a_backfill_that_delays_a_reservation, checker_catches_a_reservation_for_a_job_that_does_not_wait, estimates_follow_the_reservation_walk, \
	estimate_is_unknown_when_blockers_never_end, queue_default_runtime_gives_unknown_runtimes_an_end, \
	estimates_follow_backfill_not_queue_position, \
	estimate_is_unknown_over_quota_and_when_it_can_never_fit, an_unknown_start_behind_a_reservation_says_so, over_quota_names_the_queue_whose_limit_binds, estimate_never_fits_names_the_binding_bound, estimate_never_fits_a_task_no_node_can_hold, \
	estimate_never_fits_a_job_no_node_can_ever_host, \
	no_resources_says_what_the_first_task_lacks, no_resources_says_the_model_or_the_tasks_together, \
	no_model_counts_this_cycles_starts, a_model_gang_packs_tasks_on_one_node_of_the_model, \
	strict_order_estimates_wait_for_the_head_of_the_line, \
	estimates_are_deterministic_and_mostly_known_on_random_snapshots, checker_catches_a_bad_estimate, \
	slurm_priority_favours_age_fair_share_and_size, estimates_can_be_switched_off, \
	reclaim_frees_a_queue_above_fair_share_for_a_starving_queue, estimate_sees_the_room_reclaim_left_at_now, \
	reclaim_prefers_the_victim_with_the_least_work_since_start, \
	reclaim_prefers_the_victim_with_the_least_work_since_its_checkpoint, reclaim_skips_a_victim_that_makes_no_room, reclaim_never_evicts_non_preemptible_jobs, \
	reclaim_waits_for_a_checkpoint_within_the_grace, preemptors_wait_for_checkpoints_each_its_own_victims, \
	checker_catches_a_bad_checkpoint_wait, checkpoint_waits_keep_every_invariant_on_random_snapshots, \
	reclaim_honours_the_queue_min_runtime_protection, min_runtime_estimate_checks_placement,             \
	reclaim_evicts_whole_gangs, \
	reclaim_evicts_nothing_when_the_preemptor_would_not_fit_anyway, preemption_within_a_queue_by_priority, \
	reclaim_never_takes_a_queue_over_its_fair_share, narrowing_reclaim_never_inverts_two_queues, \
	narrowing_reclaim_compares_the_children_of_the_common_ancestor, reclaim_stops_at_the_start_budget, no_waiting_job_is_expected_at_now, a_fractional_job_is_not_told_gang_no_fit, a_one_task_job_waits_for_busy_gpus_and_a_gang_for_its_fit, queues_tied_on_share_go_by_priority, reclaim_starts_an_elastic_gang_at_its_minimum, \
	unreserved_gangs_are_expected_in_age_order_after_starving, a_gang_held_by_its_queues_limit_is_expected_when_the_limit_lets_it_in, \
	a_gang_reserved_beyond_its_starving_time_is_expected_sooner, a_starving_gangs_reservation_outlives_the_start_limit, \
	the_gang_queue_counts_free_task_slots_not_gpus, \
	a_job_past_its_expected_end_is_expected_to_run_as_long_again, a_reserved_job_says_why_it_did_not_start_now, conservative_backfill_reserves_for_every_blocked_job, the_config_sets_how_many_blocked_jobs_get_a_reservation, consolidation_moves_small_jobs_to_free_nodes_for_a_gang, \
	checker_catches_a_start_of_a_running_job, a_starving_gang_is_tried_first_and_reserved, reclaim_spares_a_job_that_started_after_starving, \
	evictions_are_bounded_per_cycle, reclaim_is_deterministic_and_keeps_every_invariant_on_random_snapshots, \
	reclaim_never_takes_back_what_the_last_cycle_reclaimed, \
	checker_catches_a_bad_eviction, consolidation_decisions_fit_when_moves_outnumber_the_other_jobs, \
	a_queue_line_is_priority_then_submit_then_index, a_queue_line_is_priority_then_expansion_factor_on_both_sorts, \
	a_short_job_passes_a_long_one_by_expansion_factor, fifo_line_is_submit_then_index_however_the_jobs_arrive, \
	one_per_node_tasks_each_get_a_node, apart_groups_never_share_a_node, a_filter_of_every_node_places_as_none, random_filters_keep_every_invariant, \
	node_filter_keeps_a_job_on_its_nodes, filters_sharing_a_start_are_told_apart, \
	node_filter_on_cordoned_nodes_waits_for_them, \
	reclaim_for_a_filtered_job_evicts_on_its_nodes, a_filtered_gang_is_estimated_when_its_rack_frees, \
	reclaim_for_group_filters_evicts_where_some_group_may_go, a_gang_with_group_filters_is_estimated_when_its_groups_free, \
	except_filters_keep_every_invariant, an_except_filter_keeps_a_job_off_its_nodes, \
	group_filters_put_each_group_on_its_nodes, a_group_filter_waits_for_its_node, \
	random_group_filters_keep_every_invariant, a_filter_on_every_group_places_as_the_jobs, \
	jobs_alike_but_for_their_group_filters_are_told_apart, a_fractional_group_shares_a_gpu_on_its_node, \
	an_except_filter_is_the_reason_only_when_it_leaves_out_room, groups_no_domain_of_the_required_level_holds_never_start, \
	users_take_turns_inside_a_queue_with_user_fair_share, users_alternate_and_count_only_their_own_queue, \
	reclaim_never_evicts_jobs_of_a_nonpreemptible_queue, \
	a_model_limit_caps_the_jobs_that_name_its_model, a_job_naming_no_model_goes_where_its_limits_hold, \
	a_model_limit_on_a_fleet_without_gpus_leaves_the_capacity_reason, a_parent_model_limit_counts_its_children, a_reservation_keeps_to_the_models_a_limit_leaves, \
	reclaim_under_a_model_limit_frees_an_allowed_model, random_model_limits_keep_every_invariant, \
	model_limits_are_validated, moved_jobs_count_once_against_their_model_limit, \
	a_moved_job_stays_on_its_gpu_model, users_past_use_counts_in_their_turns, \
	users_past_use_stays_in_its_queue, estimates_count_the_jobs_ahead, \
	a_job_past_the_estimate_depth_waits_for_its_shape_ahead, a_job_ahead_without_a_runtime_holds_its_place_for_ever, \
	estimates_ahead_never_change_decisions

int main(void)
{
	fw_test_fn fns[] = { TESTS };
	int rc;
	setup();
	rc = fw_test_main(FW_TEST__STR(TESTS), fns, (int)(sizeof fns / sizeof fns[0]));
	teardown();
	return rc;
}

