/*
 * test_health_place.c — node health in the cycle (health.h, lib/drain.c):
 * per-GPU exclusion, unhealthy and suspect nodes, the size threshold, the
 * HEALTH reason, usable-only domain capacity, drains and the checker.
 */
#include <stdlib.h>

#include "builder.h"
#include "cstate.h"
#include "harness.h"

static struct fw_arena A;

static struct fw_plan *run(const struct fw_snapshot *s)
{
	return tb_plan(s, NULL, &A);
}

static const struct fw_decision *decision_of(const struct fw_plan *p, enum fw_decision_kind k, int job,
					     int node)
{
	for (int i = 0; i < p->ndecisions; i++)
		if (p->decisions[i].kind == k && p->decisions[i].job == job &&
		    (node < 0 || p->decisions[i].node == node))
			return &p->decisions[i];
	return NULL;
}

/* The node of job j's first task in the plan's START, or -1 if it did not
 * start. */
static int start_node(const struct fw_plan *p, int j)
{
	const struct fw_decision *d = decision_of(p, FW_DECIDE_START, j, -1);

	return d ? p->allocs[d->alloc_first].node : -1;
}

static int count_kind(const struct fw_plan *p, enum fw_decision_kind k)
{
	int n = 0;

	for (int i = 0; i < p->ndecisions; i++)
		n += p->decisions[i].kind == k;
	return n;
}

/* n nodes of 8 GPUs, one queue. */
static struct fw_snapshot *cluster(int n)
{
	struct fw_snapshot *s = fw_snapshot_new();
	char name[16];

	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof name, "n%d", i);
		tb_node(s, name, 8, "H100", NULL, NULL, NULL);
	}
	tb_queue(s, "q", -1, 8.0 * n, -1, 1);
	return s;
}

TEST(bad_gpu_keeps_the_others)
{
	struct fw_snapshot *s = cluster(1);
	struct fw_plan *p;

	char name[16];

	s->nodes[0].bad_gpu_mask = 1u << 3;
	for (int i = 0; i < 7; i++) {
		snprintf(name, sizeof name, "one%d", i);
		tb_job(s, name, 0, 1, 1, 1000, i);
	}
	tb_job(s, "seven", 0, 1, 7, 1000, 10);
	p = run(s);
	ASSERT(p);
	ASSERT_EQ(count_kind(p, FW_DECIDE_START), 7); /* seven 1-GPU jobs */
	for (int i = 0; i < p->nallocs; i++)
		ASSERT_EQ(p->allocs[i].gpu_mask & (1u << 3), 0);
	fw_snapshot_free(s);
}

TEST(bad_gpu_blocks_full_node_job_with_health_reason)
{
	struct fw_snapshot *s = cluster(1);
	struct fw_plan *p;
	const struct fw_pending *r;

	s->nodes[0].bad_gpu_mask = 1u << 0;
	tb_job(s, "eight", 0, 1, 8, 1000, 0);
	tb_job(s, "seven", 0, 1, 7, 1000, 1);
	p = run(s);
	ASSERT(p);
	ASSERT(decision_of(p, FW_DECIDE_START, 1, -1));
	r = fw_plan_pending_for(p, 0);
	ASSERT(r);
	ASSERT_EQ(r->reason, FW_REASON_HEALTH);
	ASSERT_EQ(r->a, 1);
	ASSERT_EQ(r->b, 1);
	fw_snapshot_free(s);
}

TEST(unhealthy_node_excluded)
{
	struct fw_snapshot *s = cluster(2);
	struct fw_plan *p;
	const struct fw_pending *r;
	char buf[256];

	s->nodes[0].health = FW_HEALTH_UNHEALTHY;
	tb_job(s, "a", 0, 1, 8, 1000, 0);
	tb_job(s, "b", 0, 1, 8, 1000, 1);
	p = run(s);
	ASSERT(p);
	ASSERT_EQ(count_kind(p, FW_DECIDE_START), 1);
	ASSERT_EQ(p->allocs[0].node, 1);
	/* with a running on node 1, b cannot fit at all: health is why */
	int one[] = { 1 };
	tb_run(s, 0, 1, one, 0xff);
	p = run(s);
	ASSERT(p);
	ASSERT_EQ(count_kind(p, FW_DECIDE_START), 0);
	r = fw_plan_pending_for(p, 1);
	ASSERT(r);
	ASSERT_EQ(r->reason, FW_REASON_HEALTH);
	ASSERT_EQ(r->a, 1);
	ASSERT_EQ(r->b, 2);
	fw_reason_format(r->reason, r->a, r->b, buf, sizeof buf);
	ASSERT_STR_CONTAINS(buf, "nodes unhealthy: 1 of the 2 nodes with GPUs");
	/* with the snapshot: which kind the node is */
	fw_reason_format_job(s, 1, r->reason, r->a, r->b, buf, sizeof buf);
	ASSERT_STR_EQ(buf, "nodes unhealthy: 1 of the 2 nodes with GPUs (cordoned ones aside) are held back by health "
			   "(1 unhealthy); the others lack the free GPUs for it");
	ASSERT_STR_EQ(fw_reason_name(FW_REASON_HEALTH), "health");
	fw_snapshot_free(s);
}

TEST(draining_node_excluded)
{
	struct fw_snapshot *s = cluster(2);
	struct fw_plan *p;

	s->nodes[1].health = FW_HEALTH_DRAINING;
	tb_job(s, "a", 0, 1, 4, 1000, 0);
	tb_job(s, "b", 0, 1, 4, 1000, 1);
	tb_job(s, "c", 0, 1, 4, 1000, 2);
	p = run(s);
	ASSERT(p);
	ASSERT_EQ(count_kind(p, FW_DECIDE_START), 2);
	for (int i = 0; i < p->nallocs; i++)
		ASSERT_EQ(p->allocs[i].node, 0);
	fw_snapshot_free(s);
}

TEST(big_gang_avoids_suspect_small_uses_it)
{
	struct fw_snapshot *s = cluster(3);
	struct fw_plan *p;
	const struct fw_pending *r;

	s->nodes[0].health = FW_HEALTH_SUSPECT;
	tb_job(s, "gang16", 0, 2, 8, 1000, 0);
	tb_job(s, "small8", 0, 1, 8, 1000, 1);
	p = run(s);
	ASSERT(p);
	const struct fw_decision *g = decision_of(p, FW_DECIDE_START, 0, -1);
	ASSERT(g);
	for (int k = 0; k < g->alloc_count; k++)
		ASSERT_NE(p->allocs[g->alloc_first + k].node, 0);
	ASSERT_EQ(start_node(p, 1), 0); /* probation is tested by small jobs */
	fw_snapshot_free(s);

	/* two nodes, one suspect: the 16-GPU gang waits and says why */
	s = cluster(2);
	s->nodes[1].health = FW_HEALTH_SUSPECT;
	tb_job(s, "gang16", 0, 2, 8, 1000, 0);
	p = run(s);
	ASSERT(p);
	ASSERT_EQ(count_kind(p, FW_DECIDE_START), 0);
	r = fw_plan_pending_for(p, 0);
	ASSERT(r);
	ASSERT_EQ(r->reason, FW_REASON_HEALTH);
	ASSERT_EQ(r->a, 1);
	ASSERT_EQ(r->b, 2);
	/* ... unless it is preemptible */
	s->jobs[0].preemptible = true;
	p = run(s);
	ASSERT(p);
	ASSERT_EQ(count_kind(p, FW_DECIDE_START), 1);
	fw_snapshot_free(s);
}

/* Lemons (fault history) are soft: a big gang (lemon_gang_gpus or more;
 * 16 here) takes the other nodes when it can, takes lemons last when it
 * must, and smaller jobs take lemons first. */
TEST(big_gang_takes_lemons_last)
{
	struct fw_snapshot *s = cluster(4);
	struct fw_plan *p;

	s->config.lemon_gang_gpus = 16;
	s->nodes[0].lemon = true;
	s->nodes[1].lemon = true;
	tb_job(s, "gang16", 0, 2, 8, 1000, 0);
	p = run(s);
	ASSERT(p);
	const struct fw_decision *g = decision_of(p, FW_DECIDE_START, 0, -1);
	ASSERT(g);
	ASSERT_EQ(g->alloc_count, 2);
	for (int k = 0; k < g->alloc_count; k++)
		ASSERT(p->allocs[g->alloc_first + k].node >= 2);
	fw_snapshot_free(s);

	/* three lemons of four: the gang starts now, on one lemon only */
	s = cluster(4);
	s->config.lemon_gang_gpus = 16;
	for (int i = 0; i < 3; i++)
		s->nodes[i].lemon = true;
	tb_job(s, "gang16", 0, 2, 8, 1000, 0);
	p = run(s);
	ASSERT(p);
	g = decision_of(p, FW_DECIDE_START, 0, -1);
	ASSERT(g);
	int lemons = 0, on3 = 0;
	for (int k = 0; k < g->alloc_count; k++) {
		lemons += s->nodes[p->allocs[g->alloc_first + k].node].lemon;
		on3 += p->allocs[g->alloc_first + k].node == 3;
	}
	ASSERT_EQ(lemons, 1);
	ASSERT_EQ(on3, 1);
	fw_snapshot_free(s);

	/* a smaller job takes the lemon first, though node 0 comes first */
	s = cluster(2);
	s->config.lemon_gang_gpus = 16;
	s->nodes[1].lemon = true;
	tb_job(s, "small4", 0, 1, 4, 1000, 0);
	p = run(s);
	ASSERT(p);
	ASSERT_EQ(start_node(p, 0), 1);
	fw_snapshot_free(s);
}

/* The same rules for a gang with a node filter, which walks its filter's
 * slots (lib/filter.c) instead of the domain index: of its four nodes
 * (of six; nodes 4 and 5 are free, not lemons, and off its filter), it
 * keeps off two lemons, takes one lemon of three when it must, and a big
 * gang skips a suspect node of its filter. */
TEST(a_filtered_gang_keeps_the_lemon_and_suspect_rules)
{
	int32_t four[] = { 0, 1, 2, 3 };
	for (int lemons = 2; lemons <= 3; lemons++) {
		struct fw_snapshot *s = cluster(6);
		s->config.lemon_gang_gpus = 16;
		for (int i = 0; i < lemons; i++)
			s->nodes[i].lemon = true;
		int j = tb_job(s, "gang16", 0, 2, 8, 1000, 0);
		ASSERT(fw_snapshot_restrict_job(s, j, four, 4) >= 0);
		struct fw_plan *p = run(s);
		ASSERT(p);
		const struct fw_decision *g = decision_of(p, FW_DECIDE_START, j, -1);
		ASSERT(g);
		int on = 0;
		for (int k = 0; k < g->alloc_count; k++) {
			ASSERT(p->allocs[g->alloc_first + k].node < 4);
			on += s->nodes[p->allocs[g->alloc_first + k].node].lemon;
		}
		ASSERT_EQ(on, lemons - 2);
		fw_snapshot_free(s);
	}
	struct fw_snapshot *s = cluster(6);
	s->nodes[1].health = FW_HEALTH_SUSPECT;
	int j = tb_job(s, "gang16", 0, 2, 8, 1000, 0); /* 16 GPUs: suspect_gang_gpus */
	ASSERT(fw_snapshot_restrict_job(s, j, four, 2) >= 0); /* nodes 0 and 1 */
	int k = tb_job(s, "gang16b", 0, 2, 8, 1000, 1);
	int32_t three[] = { 0, 2, 3 };
	ASSERT(fw_snapshot_restrict_job(s, k, three, 3) >= 0);
	struct fw_plan *p = run(s);
	ASSERT(p);
	ASSERT(decision_of(p, FW_DECIDE_START, j, -1) == NULL); /* its other node is suspect */
	const struct fw_decision *g = decision_of(p, FW_DECIDE_START, k, -1);
	ASSERT(g);
	fw_snapshot_free(s);
}

static int on_lemons(const struct fw_snapshot *s, const struct fw_plan *p, const struct fw_decision *d)
{
	int n = 0;

	for (int k = 0; k < d->alloc_count; k++)
		n += s->nodes[p->allocs[d->alloc_first + k].node].lemon;
	return n;
}

/* The default threshold is 64 GPUs: a 32-GPU gang fits on four lemons
 * and takes them (with two lemons only, it places as if there were none),
 * a 64-GPU gang keeps off them while it can. */
TEST(lemon_gang_default_64)
{
	struct fw_snapshot *s = cluster(10);
	struct fw_plan *p;

	for (int i = 6; i < 10; i++)
		s->nodes[i].lemon = true;
	tb_job(s, "gang32", 0, 4, 8, 1000, 0);
	p = run(s);
	ASSERT(p);
	const struct fw_decision *g = decision_of(p, FW_DECIDE_START, 0, -1);
	ASSERT(g);
	ASSERT_EQ(on_lemons(s, p, g), 4);
	fw_snapshot_free(s);

	s = cluster(10);
	s->nodes[3].lemon = true;
	s->nodes[7].lemon = true;
	tb_job(s, "gang64", 0, 8, 8, 1000, 0);
	p = run(s);
	ASSERT(p);
	g = decision_of(p, FW_DECIDE_START, 0, -1);
	ASSERT(g);
	ASSERT_EQ(g->alloc_count, 8);
	ASSERT_EQ(on_lemons(s, p, g), 0);
	fw_snapshot_free(s);

	/* ... and a preemptible one takes them first, like small work */
	s = cluster(10);
	for (int i = 0; i < 8; i++)
		s->nodes[i + 2].lemon = true;
	int j = tb_job(s, "gang64", 0, 8, 8, 1000, 0);
	p = run(s);
	ASSERT(p);
	ASSERT_EQ(on_lemons(s, p, decision_of(p, FW_DECIDE_START, 0, -1)), 6);
	s->jobs[j].preemptible = true;
	p = run(s);
	ASSERT(p);
	ASSERT_EQ(on_lemons(s, p, decision_of(p, FW_DECIDE_START, 0, -1)), 8);
	fw_snapshot_free(s);
}

/* Smaller jobs: suspect nodes they may use first, fullest tainted node
 * first, and anywhere once the tainted nodes are full. */
TEST(small_jobs_take_tainted_nodes_first)
{
	struct fw_snapshot *s = cluster(4);
	struct fw_plan *p;

	s->nodes[2].health = FW_HEALTH_SUSPECT;
	tb_job(s, "small2", 0, 1, 2, 1000, 0);
	p = run(s);
	ASSERT(p);
	ASSERT_EQ(start_node(p, 0), 2);
	fw_snapshot_free(s);

	/* two lemons, node 3 already half busy: bin-pack among them */
	s = cluster(4);
	s->nodes[1].lemon = true;
	s->nodes[3].lemon = true;
	int r = tb_job(s, "running", 0, 1, 4, 1000, 0);
	const int on3[] = { 3 };
	tb_run(s, r, 1, on3, 0x0f);
	tb_job(s, "small4", 0, 1, 4, 1000, 1);
	p = run(s);
	ASSERT(p);
	ASSERT_EQ(start_node(p, 1), 3);
	fw_snapshot_free(s);

	/* the lemon is full: the job goes elsewhere, now */
	s = cluster(2);
	s->nodes[0].lemon = true;
	r = tb_job(s, "running", 0, 1, 8, 1000, 0);
	const int on0[] = { 0 };
	tb_run(s, r, 1, on0, 0xff);
	tb_job(s, "small1", 0, 1, 1, 1000, 1);
	p = run(s);
	ASSERT(p);
	ASSERT_EQ(start_node(p, 1), 1);
	fw_snapshot_free(s);

	/* a 16-GPU gang takes lemons first but never a suspect node: of the
	 * lemons 0 (also suspect), 2 and 3 it takes 2 and 3 */
	s = cluster(5);
	s->nodes[0].health = FW_HEALTH_SUSPECT;
	s->nodes[0].lemon = true;
	s->nodes[2].lemon = true;
	s->nodes[3].lemon = true;
	tb_job(s, "gang16", 0, 2, 8, 1000, 0);
	p = run(s);
	ASSERT(p);
	const struct fw_decision *d = decision_of(p, FW_DECIDE_START, 0, -1);
	ASSERT(d);
	ASSERT_EQ(d->alloc_count, 2);
	for (int k = 0; k < d->alloc_count; k++)
		ASSERT(p->allocs[d->alloc_first + k].node == 2 || p->allocs[d->alloc_first + k].node == 3);
	fw_snapshot_free(s);
}

/* Lemons, a blocked gang's reservation and start-time estimates in one
 * cycle: the clones the reservation and estimate phases work on carry
 * their own copy of the tainted-node lists (a shared copy corrupted them
 * and looped), and small jobs still take the lemons first. */
TEST(tainted_lists_survive_reservations_and_estimates)
{
	struct fw_snapshot *s = cluster(6);
	struct fw_plan *p;
	const int busy[] = { 0, 1, 2, 3 };

	for (int i = 3; i < 6; i++)
		s->nodes[i].lemon = true;
	int r = tb_job(s, "running", 0, 4, 6, 1000, 0);
	tb_run(s, r, 4, busy, 0x3f);
	s->jobs[r].expected_runtime = 3600;
	s->jobs[r].start_time = 0;
	s->now = 100;
	tb_job(s, "gang48", 0, 6, 8, 1000, 1); /* blocked: a reservation */
	for (int i = 0; i < 12; i++) {
		char name[16];
		snprintf(name, sizeof name, "small%d", i);
		int j = tb_job(s, name, 0, 1, 2, 1000, 2 + i);
		s->jobs[j].expected_runtime = 600;
	}
	p = run(s);
	ASSERT(p);
	int on_lemons = 0, starts = 0;
	for (int i = 0; i < p->ndecisions; i++) {
		const struct fw_decision *d = &p->decisions[i];
		if (d->kind != FW_DECIDE_START)
			continue;
		starts++;
		on_lemons += s->nodes[p->allocs[d->alloc_first].node].lemon;
	}
	ASSERT(starts > 0);
	ASSERT(on_lemons > 0);
	ASSERT(count_kind(p, FW_DECIDE_RESERVE) >= 1);
	fw_snapshot_free(s);
}

/* The lemons-first search keeps a gang inside its required domain: one
 * lemon per rack cannot hold a rack-bound 2-node gang, so it starts on
 * one rack's nodes, lemon included. */
TEST(tainted_first_honours_topology)
{
	struct fw_snapshot *s = tb_two_racks();
	struct fw_plan *p;

	s->nodes[1].lemon = true;
	s->nodes[2].lemon = true;
	int j = tb_job(s, "gang16", 0, 2, 8, 1000, 0);
	s->jobs[j].required_level = 0;
	p = run(s);
	ASSERT(p);
	const struct fw_decision *d = decision_of(p, FW_DECIDE_START, 0, -1);
	ASSERT(d);
	ASSERT_EQ(d->alloc_count, 2);
	int n0 = p->allocs[d->alloc_first].node, n1 = p->allocs[d->alloc_first + 1].node;
	ASSERT_EQ(n0 / 2, n1 / 2); /* one rack */
	ASSERT_EQ(on_lemons(s, p, d), 1);
	fw_snapshot_free(s);
}

TEST(suspect_gpu_mask_counts_as_suspect)
{
	struct fw_snapshot *s = cluster(2);
	struct fw_plan *p;

	s->nodes[0].suspect_gpu_mask = 1u << 5;
	tb_job(s, "gang16", 0, 2, 8, 1000, 0);
	p = run(s);
	ASSERT(p);
	ASSERT_EQ(count_kind(p, FW_DECIDE_START), 0);
	ASSERT_EQ(fw_plan_pending_for(p, 0)->reason, FW_REASON_HEALTH);
	fw_snapshot_free(s);
}

TEST(threshold_configurable)
{
	struct fw_snapshot *s = cluster(2);
	struct fw_plan *p;

	s->nodes[0].health = FW_HEALTH_SUSPECT;
	s->config.suspect_gang_gpus = 8;
	tb_job(s, "a8", 0, 1, 8, 1000, 0);
	tb_job(s, "b8", 0, 1, 8, 1000, 1);
	tb_job(s, "c4", 0, 1, 4, 1000, 2);
	p = run(s);
	ASSERT(p);
	/* one 8-GPU job on the healthy node, the other waits; the 4-GPU
	 * job (under the threshold) uses the suspect node */
	ASSERT(decision_of(p, FW_DECIDE_START, 0, -1));
	ASSERT(!decision_of(p, FW_DECIDE_START, 1, -1));
	ASSERT_EQ(start_node(p, 2), 0);
	/* the default (16): both 8-GPU jobs start */
	s->config.suspect_gang_gpus = 0;
	p = run(s);
	ASSERT(p);
	ASSERT(decision_of(p, FW_DECIDE_START, 1, -1));
	fw_snapshot_free(s);
}

TEST(domains_count_usable_capacity_only)
{
	struct fw_snapshot *s = fw_snapshot_new();
	const char *lv[] = { "rack" };
	struct fw__cstate c;

	tb_levels(s, 1, lv);
	tb_node(s, "a0", 8, "H100", "ra", NULL, NULL);
	tb_node(s, "a1", 8, "H100", "ra", NULL, NULL);
	tb_node(s, "b0", 8, "H100", "rb", NULL, NULL);
	tb_node(s, "b1", 8, "H100", "rb", NULL, NULL);
	tb_queue(s, "q", -1, 32, -1, 1);
	s->nodes[0].health = FW_HEALTH_UNHEALTHY;
	s->nodes[2].bad_gpu_mask = 0x3;
	fw_arena_reset(&A);
	memset(&c, 0, sizeof c);
	ASSERT_OK(fw__cstate_build(&c, s, &A));
	ASSERT_EQ(c.dom[0].cap_whole, 8 + 6 + 8);
	ASSERT_EQ(c.dom[0].free_whole, 22);
	ASSERT_EQ(c.dom[1].cap_whole, 8); /* rack ra: a1 only */
	ASSERT_EQ(c.dom[2].cap_whole, 14);
	ASSERT_EQ(c.capacity.v[FW_RES_GPU], 22000);
	/* a 16-GPU gang required in one rack fits in neither rack */
	int j = tb_job(s, "g", 0, 2, 8, 1000, 0);
	s->jobs[j].required_level = 0;
	struct fw_plan *p = run(s);
	ASSERT(p);
	ASSERT_EQ(count_kind(p, FW_DECIDE_START), 0);
	fw_snapshot_free(s);
}

/* A 2-node gang on n0+n1 and a job on n1; n0 turns unhealthy. */
static struct fw_snapshot *drain_case(void)
{
	struct fw_snapshot *s = cluster(3);
	int both[] = { 0, 1 }, one[] = { 1 };
	int g = tb_job(s, "gang", 0, 2, 4, 1000, 0);
	int k = tb_job(s, "other", 0, 1, 4, 1000, 1);

	tb_run(s, g, 2, both, 0x0f);
	tb_run(s, k, 1, one, 0xf0);
	s->jobs[g].start_time = s->jobs[k].start_time = 0;
	s->now = 100;
	s->nodes[0].health = FW_HEALTH_UNHEALTHY;
	return s;
}

TEST(drain_requeues_by_default)
{
	struct fw_snapshot *s = drain_case();
	struct fw_plan *p = run(s);
	const struct fw_decision *d, *e;

	ASSERT(p);
	ASSERT_EQ(count_kind(p, FW_DECIDE_DRAIN), 1);
	d = decision_of(p, FW_DECIDE_DRAIN, -1, 0);
	ASSERT(d);
	ASSERT_EQ(d->reason, FW_REASON_DRAIN_REQUEUE);
	ASSERT_EQ(d->b, 1);
	e = decision_of(p, FW_DECIDE_EVICT, 0, -1);
	ASSERT(e); /* the whole gang, though it is not preemptible */
	ASSERT_EQ(e->reason, FW_REASON_DRAINED);
	ASSERT_EQ(e->a, 0);
	ASSERT_EQ(e->alloc_count, 2);
	ASSERT(!decision_of(p, FW_DECIDE_EVICT, 1, -1)); /* not on n0 */
	fw_snapshot_free(s);
}

/* A job counts once per node however its tasks are listed: two groups,
 * the first on n0 and n1, the second on n0 again (allocations n0 n1 n0). */
TEST(drain_counts_a_job_once_per_node)
{
	struct fw_snapshot *s = cluster(3);
	int j = tb_job(s, "ps-workers", 0, 2, 2, 1000, 0);
	struct fw_job *job = &s->jobs[j];
	const int nodes[] = { 0, 1, 0 };
	const struct fw_decision *d;
	struct fw_plan *p;

	job->ngroups = 2;
	job->groups[1] = job->groups[0];
	job->groups[1].count = 1;
	job->state = FW_JOB_RUNNING;
	job->alloc_first = s->nallocs;
	job->alloc_count = 3;
	for (int k = 0; k < 3; k++) {
		struct fw_task_alloc a = { .node = nodes[k], .group = (int16_t)(k == 2), .gpu_mask = k == 2 ? 0x30 : 0x03,
					   .gpu_milli = 1000 };
		fw_snapshot_add_alloc(s, &a);
	}
	s->now = 100;
	s->nodes[0].health = FW_HEALTH_UNHEALTHY;
	p = run(s);
	ASSERT(p);
	d = decision_of(p, FW_DECIDE_DRAIN, -1, 0);
	ASSERT(d);
	ASSERT_EQ(d->b, 1);
	d = decision_of(p, FW_DECIDE_EVICT, j, -1);
	ASSERT(d);
	ASSERT_EQ(d->b, 2); /* its tasks on n0 */
	fw_snapshot_free(s);
}

static const struct fw_pending *pending_of(const struct fw_plan *p, int job)
{
	for (int i = 0; i < p->npending; i++)
		if (p->pending[i].job == job)
			return &p->pending[i];
	return NULL;
}

/* A gang on n0 (unhealthy) and n1, expected to run to t=5000, is
 * requeued: n1 is free in this very plan (the drain runs before the
 * build), so a waiting 8-GPU job starts on it now, after the eviction.
 * The gang cannot restart (one healthy node for two tasks).  With the
 * drain letting the gang finish, n1 stays the gang's: the waiting job
 * is expected at the gang's end. */
TEST(a_requeued_gangs_room_is_used_in_the_same_plan)
{
	for (int v = 0; v < 3; v++) {
		struct fw_snapshot *s = cluster(2);
		int both[] = { 0, 1 };
		int g = tb_job(s, "gang", 0, 2, 8, 1000, 0);
		int w = tb_job(s, "waits", 0, 1, 8, 1000, 50);
		const struct fw_decision *e, *st;
		struct fw_plan *p;

		tb_run(s, g, 2, both, 0xff);
		s->jobs[g].start_time = 0;
		s->jobs[g].expected_runtime = 5000;
		s->jobs[w].expected_runtime = 600;
		s->now = 100;
		s->nodes[0].health = FW_HEALTH_UNHEALTHY;
		s->config.reserve_depth = v == 1 ? -1 : 0;
		s->config.drain_requeue = v != 2;
		p = run(s);
		ASSERT(p);
		e = decision_of(p, FW_DECIDE_EVICT, g, -1);
		st = decision_of(p, FW_DECIDE_START, w, -1);
		ASSERT_EQ(e != NULL, v != 2);
		ASSERT(!decision_of(p, FW_DECIDE_START, g, -1)); /* no room for it */
		ASSERT(!pending_of(p, g));                       /* not pending in this snapshot */
		if (v != 2) {
			ASSERT(st);
			ASSERT(e < st); /* the eviction first */
			ASSERT_EQ(start_node(p, w), 1);
			ASSERT(!pending_of(p, w));
		} else {
			ASSERT(!st);
			ASSERT(!decision_of(p, FW_DECIDE_EVICT, g, -1));
			ASSERT_EQ(pending_of(p, w)->expected_start, 5000);
		}
		fw_snapshot_free(s);
	}
}

/* A three-node gang requeued from n0: the two waiting jobs start now on
 * n1 and n2, with no reservation (nothing blocks them). */
TEST(a_requeued_gangs_room_starts_several)
{
	struct fw_snapshot *s = cluster(3);
	int all[] = { 0, 1, 2 };
	int g = tb_job(s, "gang", 0, 3, 8, 1000, 0);
	int w = tb_job(s, "waits", 0, 1, 8, 1000, 50);
	int x = tb_job(s, "next", 0, 1, 8, 1000, 60);
	struct fw_plan *p;

	tb_run(s, g, 3, all, 0xff);
	s->jobs[g].start_time = 0;
	s->jobs[g].expected_runtime = 5000;
	s->jobs[w].expected_runtime = s->jobs[x].expected_runtime = 600;
	s->now = 100;
	s->nodes[0].health = FW_HEALTH_UNHEALTHY;
	s->config.reserve_depth = 1;
	p = run(s);
	ASSERT(p);
	ASSERT(decision_of(p, FW_DECIDE_EVICT, g, -1));
	ASSERT_EQ(count_kind(p, FW_DECIDE_RESERVE), 0);
	ASSERT_EQ(start_node(p, w), 1);
	ASSERT_EQ(start_node(p, x), 2);
	ASSERT_EQ(p->npending, 0);
	fw_snapshot_free(s);
}

/* The requeued gang itself restarts in the same plan, elsewhere, before
 * an older pending job of its queue could take the room: DRAIN, its
 * EVICT, then its START, in that order, on healthy nodes only.  The
 * pending job waits for what is left. */
/* Four 8-GPU nodes; "gang" (2 x 8 GPUs, submitted at 10) runs on n0 and
 * n1 since t=20; now 100, n0 unhealthy.  *g: the gang's index. */
static struct fw_snapshot *gang_on_failed_node(int *g)
{
	struct fw_snapshot *s = cluster(4);
	int two[] = { 0, 1 };

	*g = tb_job(s, "gang", 0, 2, 8, 1000, 10);
	tb_run(s, *g, 2, two, 0xff);
	s->jobs[*g].start_time = 20;
	s->now = 100;
	s->nodes[0].health = FW_HEALTH_UNHEALTHY;
	return s;
}

TEST(a_requeued_gang_restarts_in_the_same_plan)
{
	int g;
	struct fw_snapshot *s = gang_on_failed_node(&g);
	int w = tb_job(s, "older", 0, 2, 8, 1000, 0);
	const struct fw_decision *dr, *e, *st;
	struct fw_plan *p;

	s->jobs[g].expected_runtime = 5000;
	s->jobs[w].expected_runtime = 600;
	p = run(s);
	ASSERT(p);
	dr = decision_of(p, FW_DECIDE_DRAIN, -1, 0);
	e = decision_of(p, FW_DECIDE_EVICT, g, -1);
	st = decision_of(p, FW_DECIDE_START, g, -1);
	ASSERT(dr && e && st);
	ASSERT(dr < e && e < st);
	ASSERT_EQ(st->alloc_count, 2);
	for (int k = 0; k < st->alloc_count; k++)
		ASSERT(p->allocs[st->alloc_first + k].node != 0);
	ASSERT(!decision_of(p, FW_DECIDE_START, w, -1)); /* one healthy node left */
	ASSERT(pending_of(p, w));
	fw_snapshot_free(s);
}

/* Two jobs on the failed node, room for one to restart: the higher
 * priority goes first, then the earlier submission, whatever the job
 * order. */
TEST(requeued_jobs_restart_by_priority_then_submission)
{
	for (int by_prio = 0; by_prio < 2; by_prio++) {
		struct fw_snapshot *s = cluster(3);
		int n0[] = { 0 }, n1[] = { 1 }, n2[] = { 2 };
		int a = tb_job(s, "a", 0, 1, 4, 1000, by_prio ? 0 : 50);
		int b = tb_job(s, "b", 0, 1, 4, 1000, 10);
		int full = tb_job(s, "full", 0, 1, 8, 1000, 0);
		int half = tb_job(s, "half", 0, 1, 4, 1000, 0);
		struct fw_plan *p;

		tb_run(s, a, 1, n0, 0x0f);
		tb_run(s, b, 1, n0, 0xf0);
		tb_run(s, full, 1, n1, 0xff);
		tb_run(s, half, 1, n2, 0x0f); /* 4 GPUs free, on n2 only */
		if (by_prio)
			s->jobs[b].priority = 5; /* b: later, but the higher priority */
		s->now = 100;
		s->nodes[0].health = FW_HEALTH_UNHEALTHY;
		p = run(s);
		ASSERT(p);
		ASSERT(decision_of(p, FW_DECIDE_EVICT, a, -1) && decision_of(p, FW_DECIDE_EVICT, b, -1));
		ASSERT_EQ(start_node(p, b), 2);
		ASSERT(!decision_of(p, FW_DECIDE_START, a, -1));
		fw_snapshot_free(s);
	}
}

/* The restart honours its queue's limit: lowered below the gang's GPUs
 * since it started, the gang is requeued and not restarted, and the
 * room goes to a job the limit allows. */
TEST(a_requeued_gang_restarts_under_its_queues_limit)
{
	int g;
	struct fw_snapshot *s = gang_on_failed_node(&g);
	int w = tb_job(s, "small", 0, 1, 8, 1000, 50);
	struct fw_plan *p;

	s->queues[0].limit.v[FW_RES_GPU] = 8000;
	p = run(s);
	ASSERT(p);
	ASSERT(decision_of(p, FW_DECIDE_EVICT, g, -1));
	ASSERT(!decision_of(p, FW_DECIDE_START, g, -1));
	ASSERT(decision_of(p, FW_DECIDE_START, w, -1));
	fw_snapshot_free(s);
}

/* A big gang does not restart on a suspect node (placement's rule), and
 * a job ended by its run-time limit on the failed node ends as such,
 * not requeued. */
TEST(a_restart_keeps_the_health_rules_and_the_time_limit_wins)
{
	int g, three[] = { 3 };
	struct fw_snapshot *s = gang_on_failed_node(&g);
	int t = tb_job(s, "timed", 0, 1, 8, 1000, 5);
	const struct fw_decision *e;
	struct fw_plan *p;

	tb_run(s, t, 1, three, 0xff);
	s->jobs[t].start_time = 0;
	s->jobs[t].max_runtime_s = 50;
	s->nodes[3].health = FW_HEALTH_UNHEALTHY;
	s->nodes[2].health = FW_HEALTH_SUSPECT;
	p = run(s);
	ASSERT(p);
	ASSERT(decision_of(p, FW_DECIDE_EVICT, g, -1));
	ASSERT(!decision_of(p, FW_DECIDE_START, g, -1)); /* 16 GPUs: not on suspect n2 */
	e = decision_of(p, FW_DECIDE_EVICT, t, -1);
	ASSERT(e);
	ASSERT_EQ(e->reason, FW_REASON_TIME_LIMIT);
	ASSERT(e == &p->decisions[0]); /* the limits' evictions first */
	fw_snapshot_free(s);
}

TEST(drain_lets_finish_by_policy)
{
	struct fw_snapshot *s = drain_case();
	struct fw_plan *p;

	s->config.drain_requeue = false;
	p = run(s);
	ASSERT(p);
	ASSERT_EQ(count_kind(p, FW_DECIDE_DRAIN), 1);
	ASSERT_EQ(p->decisions[0].reason, FW_REASON_DRAIN_FINISH);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 0);
	fw_snapshot_free(s);
}

TEST(draining_node_lets_finish)
{
	struct fw_snapshot *s = drain_case();
	struct fw_plan *p;

	s->nodes[0].health = FW_HEALTH_DRAINING;
	p = run(s);
	ASSERT(p);
	ASSERT_EQ(count_kind(p, FW_DECIDE_DRAIN), 1);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 0);
	fw_snapshot_free(s);
}

/* The world already holds the node out of new work (an operator's drain:
 * unschedulable), but jobs run on it: reported unhealthy, it is drained
 * and its jobs requeued all the same. */
TEST(unschedulable_unhealthy_node_with_jobs_drained)
{
	struct fw_snapshot *s = drain_case();
	struct fw_plan *p;

	s->nodes[0].schedulable = false;
	p = run(s);
	ASSERT(p);
	ASSERT(decision_of(p, FW_DECIDE_DRAIN, -1, 0));
	ASSERT_EQ(decision_of(p, FW_DECIDE_DRAIN, -1, 0)->reason, FW_REASON_DRAIN_REQUEUE);
	ASSERT(count_kind(p, FW_DECIDE_EVICT) >= 1);
	fw_snapshot_free(s);
}

TEST(healthy_cluster_no_drain)
{
	struct fw_snapshot *s = drain_case();
	struct fw_plan *p;

	s->nodes[0].health = FW_HEALTH_HEALTHY;
	p = run(s);
	ASSERT(p);
	ASSERT_EQ(count_kind(p, FW_DECIDE_DRAIN), 0);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 0);
	fw_snapshot_free(s);
}

/* An idle out-of-service node is drained while the world still has it
 * schedulable (b = 0 jobs), and not again once it is not. */
TEST(idle_unhealthy_node_drained_once)
{
	struct fw_snapshot *s = cluster(3);
	const struct fw_decision *d;
	struct fw_plan *p;

	s->now = 100;
	s->nodes[1].health = FW_HEALTH_UNHEALTHY;
	s->nodes[2].health = FW_HEALTH_DRAINING;
	p = run(s);
	ASSERT(p);
	ASSERT_EQ(count_kind(p, FW_DECIDE_DRAIN), 2);
	ASSERT_EQ(count_kind(p, FW_DECIDE_EVICT), 0);
	d = decision_of(p, FW_DECIDE_DRAIN, -1, 1);
	ASSERT(d);
	ASSERT_EQ(d->reason, FW_REASON_DRAIN_REQUEUE);
	ASSERT_EQ(d->a, 1);
	ASSERT_EQ(d->b, 0);
	d = decision_of(p, FW_DECIDE_DRAIN, -1, 2);
	ASSERT(d);
	ASSERT_EQ(d->reason, FW_REASON_DRAIN_FINISH);
	s->nodes[1].schedulable = s->nodes[2].schedulable = false; /* drained */
	p = run(s);
	ASSERT(p);
	ASSERT_EQ(count_kind(p, FW_DECIDE_DRAIN), 0);
	fw_snapshot_free(s);
}

TEST(checker_rejects_health_violations)
{
	struct fw_snapshot *s = cluster(2);
	struct fw_plan *p;
	struct fw_diag d;

	tb_job(s, "gang16", 0, 2, 8, 1000, 0);
	p = run(s);
	ASSERT(p);
	ASSERT_EQ(count_kind(p, FW_DECIDE_START), 1);
	/* the same plan after node 1 turned suspect, then unhealthy */
	s->nodes[1].health = FW_HEALTH_SUSPECT;
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "suspect");
	s->nodes[1].health = FW_HEALTH_UNHEALTHY;
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "unhealthy");
	fw_snapshot_free(s);

	/* a DRAINED eviction from a node that is healthy is refused */
	s = drain_case();
	p = run(s);
	ASSERT(p);
	s->nodes[0].health = FW_HEALTH_HEALTHY;
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	s->nodes[0].health = FW_HEALTH_UNHEALTHY;
	ASSERT_OK(fw_plan_check(s, p, &A, &d));
	/* ... and so is one of a job with no task on that node ("other",
	 * on n1 only, not preemptible: no other rule would let it go) */
	for (int i = 0; i < p->ndecisions; i++)
		if (p->decisions[i].kind == FW_DECIDE_EVICT)
			p->decisions[i].job = 1;
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "no task");
	fw_snapshot_free(s);
}

TEST(reservation_avoids_suspect_nodes)
{
	struct fw_snapshot *s = cluster(3);
	struct fw_plan *p;
	const struct fw_decision *r;
	int busy[] = { 1, 2 };
	int b = tb_job(s, "busy", 0, 2, 8, 1000, 0);

	s->nodes[0].health = FW_HEALTH_SUSPECT;
	tb_run(s, b, 2, busy, 0xff);
	s->jobs[b].expected_runtime = 1000;
	s->jobs[b].start_time = 0;
	s->now = 10;
	tb_job(s, "gang16", 0, 2, 8, 1000, 5);
	p = run(s);
	ASSERT(p);
	r = decision_of(p, FW_DECIDE_RESERVE, 1, -1);
	ASSERT(r); /* it waits for the healthy nodes, not the suspect one */
	ASSERT_EQ(r->at, 1000);
	for (int k = 0; k < r->alloc_count; k++)
		ASSERT_NE(p->allocs[r->alloc_first + k].node, 0);
	fw_snapshot_free(s);
}

/* A gang the cluster in service can never hold, but the whole fleet could
 * once health gives its nodes back (drain.c "mend"), is not never_fits:
 * its start is unknown for health, naming the nodes health holds.  Four
 * 8-GPU nodes, n2 unhealthy and n3 draining: 3 x 8 GPUs waits for health
 * (2 of the 4 nodes), still so when the world has drained n2
 * (unschedulable) and when n3 is merely suspect for a big gang; 5 x 8 is
 * bigger than the fleet and never fits; a node cordoned while healthy is
 * the operator's, not health's: a gang that needs it waits for nodes_out
 * (a cordon can be lifted), naming it, and 5 x 8 still never fits. */
TEST(a_gang_health_holds_back_is_not_never_fits)
{
	struct fw_snapshot *s = cluster(4);
	int three = tb_job(s, "three", 0, 3, 8, 1000, 0), five = tb_job(s, "five", 0, 5, 8, 1000, 1);
	const struct fw_pending *r;
	struct fw_plan *p;
	struct fw_diag dg;
	char buf[512];

	s->nodes[2].health = FW_HEALTH_UNHEALTHY;
	s->nodes[3].health = FW_HEALTH_DRAINING;
	for (int k = 0; k < 3; k++) {
		if (k == 1)
			s->nodes[2].schedulable = false; /* drained by the world: still health's */
		if (k == 2)
			s->nodes[3].health = FW_HEALTH_SUSPECT; /* on probation: big gangs avoid it */
		p = run(s);
		ASSERT(p);
		ASSERT_EQ(count_kind(p, FW_DECIDE_START), 0);
		r = fw_plan_pending_for(p, three);
		ASSERT(r);
		ASSERT_EQ(r->expected_start, FW_TIME_UNKNOWN);
		ASSERT_EQ(r->unknown_why, FW_REASON_HEALTH);
		ASSERT_EQ(r->why_a, 2);
		ASSERT_EQ(r->why_b, 4);
		r = fw_plan_pending_for(p, five);
		ASSERT(r);
		ASSERT_EQ(r->unknown_why, FW_REASON_NEVER_FITS); /* 40 GPUs: more than the fleet */
		ASSERT_EQ(r->why_a, 40);
		ASSERT_OK(fw_plan_check(s, p, &A, &dg));
	}
	fw_reason_format(FW_REASON_HEALTH, 2, 4, buf, sizeof buf);
	ASSERT_STR_CONTAINS(buf, "2 of the 4 nodes");
	/* all of them held back: no "others" to lack the GPUs */
	fw_reason_format(FW_REASON_HEALTH, 4, 4, buf, sizeof buf);
	ASSERT_STR_CONTAINS(buf, "all 4 nodes with GPUs (cordoned ones aside) are unhealthy");
	ASSERT(strstr(buf, "others") == NULL);

	s->nodes[2].health = FW_HEALTH_HEALTHY; /* cordoned, healthy: not coming back */
	s->nodes[3].health = FW_HEALTH_HEALTHY;
	s->nodes[3].schedulable = false;
	p = run(s);
	ASSERT(p);
	r = fw_plan_pending_for(p, three);
	ASSERT_EQ(r->unknown_why, FW_REASON_NODES_OUT);
	ASSERT_EQ(r->why_a, 2); /* n2 (healthy again, still unschedulable) and n3 */
	ASSERT_EQ(r->why_b, 4); /* all four with them back */
	fw_reason_format_job(s, three, r->unknown_why, r->why_a, r->why_b, buf, sizeof buf);
	ASSERT_STR_CONTAINS(buf, "only with its nodes out of service back: n2 (cordoned), n3 (cordoned); it can start "
				 "once they are back (lift the cordons: schedulable: true)");
	ASSERT_EQ(fw_plan_pending_for(p, five)->unknown_why, FW_REASON_NEVER_FITS);
	fw_snapshot_free(s);
}

TEST(validate_rejects_bad_health)
{
	struct fw_snapshot *s = cluster(1);
	struct fw_diag d;

	s->nodes[0].health = (enum fw_health)9;
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_ERANGE);
	fw_snapshot_free(s);
}

TEST_MAIN(drain_counts_a_job_once_per_node, requeued_jobs_restart_by_priority_then_submission, bad_gpu_keeps_the_others, bad_gpu_blocks_full_node_job_with_health_reason,
	  unhealthy_node_excluded, draining_node_excluded, big_gang_avoids_suspect_small_uses_it,
	  big_gang_takes_lemons_last, a_filtered_gang_keeps_the_lemon_and_suspect_rules, lemon_gang_default_64,
	  small_jobs_take_tainted_nodes_first,
	  tainted_first_honours_topology, tainted_lists_survive_reservations_and_estimates,
	  suspect_gpu_mask_counts_as_suspect, threshold_configurable, domains_count_usable_capacity_only,
	  drain_requeues_by_default, a_requeued_gangs_room_is_used_in_the_same_plan,
	  a_requeued_gangs_room_starts_several, a_requeued_gang_restarts_in_the_same_plan,
	  a_requeued_gang_restarts_under_its_queues_limit, a_restart_keeps_the_health_rules_and_the_time_limit_wins, drain_lets_finish_by_policy, draining_node_lets_finish,
	  healthy_cluster_no_drain, unschedulable_unhealthy_node_with_jobs_drained, idle_unhealthy_node_drained_once, checker_rejects_health_violations,
	  reservation_avoids_suspect_nodes, a_gang_health_holds_back_is_not_never_fits, validate_rejects_bad_health)
