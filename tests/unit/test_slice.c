/* test_slice.c — task groups placed in slices (snapshot.h "Slices"). */
#include <stdlib.h>

#include "builder.h"
#include "harness.h"

static struct fw_arena A;

static struct fw_plan *run(const struct fw_snapshot *s, const char *policy)
{
	return tb_plan(s, policy, &A);
}

static const struct fw_decision *decision_of(const struct fw_plan *p, int job)
{
	return tb_decision(p, job);
}

/* NVL72-like racks: `racks` racks of `per` nodes of 4 GPUs under one
 * block, one queue of every GPU. */
static struct fw_snapshot *racks(int nracks, int per)
{
	struct fw_snapshot *s = fw_snapshot_new();
	const char *lv[] = { "block", "rack" };

	tb_levels(s, 2, lv);
	for (int r = 0; r < nracks; r++)
		for (int i = 0; i < per; i++) {
			char n[32], rk[16];
			snprintf(n, sizeof n, "r%dn%02d", r, i);
			snprintf(rk, sizeof rk, "r%d", r);
			tb_node(s, n, 4, NULL, "b0", rk, NULL);
		}
	tb_queue(s, "q", -1, 4.0 * nracks * per, -1, 1);
	return s;
}

/* A gang of `tasks` tasks of `gpus` GPUs, one per node. */
static int gang(struct fw_snapshot *s, const char *name, int tasks, int gpus, fw_time submit)
{
	int j = tb_job(s, name, 0, tasks, gpus, 1000, submit);
	s->jobs[j].groups[0].one_per_node = true;
	return j;
}

/* Tasks of job j per rack (level 1), into per[] (nracks entries). */
static void tasks_per_rack(const struct fw_snapshot *s, const struct fw_plan *p, int j, int *per, int nracks)
{
	const struct fw_decision *d = decision_of(p, j);

	memset(per, 0, (size_t)nracks * sizeof *per);
	for (int k = 0; d && k < d->alloc_count; k++)
		per[atoi(s->nodes[p->allocs[d->alloc_first + k].node].path[1] + 1)]++;
}

TEST(a_gang_in_slices_of_16_takes_16_nodes_of_each_of_8_racks)
{
	struct fw_snapshot *s = racks(9, 18);
	int j = gang(s, "train", 128, 4, 0);
	int per[9];
	struct fw_plan *p = run(s, NULL);

	/* unsliced, bin-packing fills rack after rack: 7 x 18 + 2 */
	ASSERT(p != NULL);
	tasks_per_rack(s, p, j, per, 9);
	for (int r = 0; r < 7; r++)
		ASSERT_EQ(per[r], 18);
	ASSERT_EQ(per[7], 2);
	/* in slices of 16 inside a rack: 8 x 16, each slice one rack */
	ASSERT_EQ(fw_snapshot_slice_group(s, j, 0, 16, 1), 0);
	p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(decision_of(p, j)->kind, FW_DECIDE_START);
	tasks_per_rack(s, p, j, per, 9);
	for (int r = 0; r < 8; r++)
		ASSERT_EQ(per[r], 16);
	ASSERT_EQ(per[8], 0);
	const struct fw_decision *d = decision_of(p, j);
	for (int k = 0; k < d->alloc_count; k++)
		ASSERT_STR_EQ(s->nodes[p->allocs[d->alloc_first + k].node].path[1],
			      s->nodes[p->allocs[d->alloc_first + k / 16 * 16].node].path[1]);
	fw_snapshot_free(s);
}

TEST(slices_fill_a_domain_before_the_next_and_leave_the_rest_whole)
{
	struct fw_snapshot *s = racks(3, 18);
	int j = gang(s, "two", 16, 4, 0);
	int per[3];

	ASSERT_EQ(fw_snapshot_slice_group(s, j, 0, 8, 1), 0);
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	tasks_per_rack(s, p, j, per, 3);
	ASSERT_EQ(per[0], 16); /* both slices in the first rack that holds them */
	fw_snapshot_free(s);
}

TEST(slices_take_the_fullest_racks_first_and_the_emptiest_with_spread)
{
	struct fw_snapshot *s = racks(3, 6);
	int busy = gang(s, "busy", 2, 4, 0);
	int n01[] = { 0, 1 };
	tb_run(s, busy, 2, n01, 0xf); /* r0: 4 nodes free, r1 and r2: 6 */
	int j = gang(s, "eight", 8, 4, 1);
	int per[3];

	/* no rack holds 8 nodes: the block; slices of 4, fullest rack first */
	ASSERT_EQ(fw_snapshot_slice_group(s, j, 0, 4, 1), 0);
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	tasks_per_rack(s, p, j, per, 3);
	ASSERT_EQ(per[0], 4);
	ASSERT_EQ(per[1], 4);
	ASSERT_EQ(per[2], 0);
	s->jobs[j].spread = true; /* the emptiest racks first */
	p = run(s, NULL);
	ASSERT(p != NULL);
	tasks_per_rack(s, p, j, per, 3);
	ASSERT_EQ(per[0], 0);
	ASSERT_EQ(per[1], 4);
	ASSERT_EQ(per[2], 4);
	fw_snapshot_free(s);
}

TEST(a_slice_no_domain_holds_never_starts_and_an_alike_job_without_slices_does)
{
	struct fw_snapshot *s = racks(2, 18);
	int big = gang(s, "big", 20, 4, 0);
	int same = gang(s, "same", 20, 4, 1);

	/* a slice of 20 nodes, racks of 18: the sliced job cannot start, and
	 * the job of the same shape without slices must not share its
	 * failure (the cycle's shapes tell them apart) */
	ASSERT_EQ(fw_snapshot_slice_group(s, big, 0, 20, 1), 0);
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT(decision_of(p, big) == NULL || decision_of(p, big)->kind != FW_DECIDE_START);
	ASSERT(decision_of(p, same) != NULL);
	ASSERT_EQ(decision_of(p, same)->kind, FW_DECIDE_START);
	ASSERT_EQ(p->npending, 1);
	ASSERT_EQ(p->pending[0].job, big);
	fw_snapshot_free(s);
}

TEST(jobs_sliced_unlike_are_told_apart)
{
	struct fw_snapshot *s = racks(2, 4);
	int a = gang(s, "a", 6, 4, 0), b = gang(s, "b", 6, 4, 1);

	/* alike but for the slice size: a's slice of 6 fits no rack of 4,
	 * b's slices of 2 fit (two in r0, one in r1); a's failure must not
	 * answer for b */
	ASSERT_EQ(fw_snapshot_slice_group(s, a, 0, 6, 1), 0);
	ASSERT_EQ(fw_snapshot_slice_group(s, b, 0, 2, 1), 1);
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT(decision_of(p, b) != NULL);
	ASSERT_EQ(decision_of(p, b)->kind, FW_DECIDE_START);
	ASSERT_EQ(p->npending, 1);
	ASSERT_EQ(p->pending[0].job, a);
	ASSERT_EQ(p->pending[0].reason, FW_REASON_SLICES);
	ASSERT_EQ(p->pending[0].a, 1);
	ASSERT_EQ(p->pending[0].b, 0);
	fw_snapshot_free(s);
}

TEST(sliced_jobs_side_by_side_each_land_whole)
{
	/* rack r0 half taken: 9 free nodes there, 18 in r1.  Three jobs of 9
	 * nodes: "a" and "b" in one slice of 9 per rack, "c" in slices of 3
	 * per rack. */
	struct fw_snapshot *s = racks(2, 18);
	int fill = gang(s, "fill", 9, 4, 0);
	int nodes[9];
	for (int i = 0; i < 9; i++)
		nodes[i] = i;
	tb_run(s, fill, 9, nodes, 0xf);
	int a = gang(s, "a", 9, 4, 1), b = gang(s, "b", 9, 4, 2), c = gang(s, "c", 9, 4, 3);
	ASSERT_EQ(fw_snapshot_slice_group(s, a, 0, 9, 1), 0);
	ASSERT_EQ(fw_snapshot_slice_group(s, b, 0, 9, 1), 1);
	ASSERT_EQ(fw_snapshot_slice_group(s, c, 0, 3, 1), 2);
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	/* a takes r0's 9 free nodes (the fullest rack that holds it), b the
	 * first 9 of r1; c's three slices of 3 fit in r1's other 9 */
	int per[2];
	tasks_per_rack(s, p, a, per, 2);
	ASSERT_EQ(per[0], 9);
	tasks_per_rack(s, p, b, per, 2);
	ASSERT_EQ(per[1], 9);
	tasks_per_rack(s, p, c, per, 2);
	ASSERT_EQ(per[1], 9);
	fw_snapshot_free(s);
}

TEST(a_node_level_slice_keeps_its_tasks_on_one_node)
{
	struct fw_snapshot *s = tb_two_racks(); /* 4 nodes x 8 GPUs */
	int r = tb_job(s, "r", 0, 1, 5, 1000, 0);
	int n0[] = { 0 };
	tb_run(s, r, 1, n0, 0x1f); /* a0: 3 GPUs free */
	int j = tb_job(s, "pairs", 0, 10, 1, 1000, 1);
	/* no node holds 10, rack ra does (3 + 8 free).  Unsliced: 3 tasks on
	 * a0 (the fullest), 7 on a1; in pairs per node: a0 takes one pair,
	 * a1 the other four */
	ASSERT_EQ(fw_snapshot_slice_group(s, j, 0, 2, FW_LEVEL_NODE), 0);
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	const struct fw_decision *d = decision_of(p, j);
	ASSERT(d != NULL);
	ASSERT_EQ(d->alloc_count, 10);
	int on0 = 0;
	for (int k = 0; k < 10; k += 2) {
		ASSERT_EQ(p->allocs[d->alloc_first + k].node, p->allocs[d->alloc_first + k + 1].node);
		on0 += p->allocs[d->alloc_first + k].node == 0;
	}
	ASSERT_EQ(on0, 1);
	fw_snapshot_free(s);
}

TEST(an_elastic_sliced_gang_starts_whole_slices)
{
	struct fw_snapshot *s = racks(2, 4); /* 2 racks x 4 nodes */
	int j = gang(s, "el", 12, 4, 0);
	s->jobs[j].min_member = 5;
	/* slices of 3 per rack: a rack of 4 holds one, so 2 slices = 6
	 * tasks, at least min_member, not the 8 nodes an unsliced gang takes */
	ASSERT_EQ(fw_snapshot_slice_group(s, j, 0, 3, 1), 0);
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT(decision_of(p, j) != NULL);
	ASSERT_EQ(decision_of(p, j)->alloc_count, 6);
	fw_snapshot_free(s);
}

TEST(a_second_group_without_slices_places_as_before)
{
	struct fw_snapshot *s = racks(3, 6);
	int j = gang(s, "mixed", 8, 4, 0);
	s->jobs[j].ngroups = 2;
	s->jobs[j].groups[1] = s->jobs[j].groups[0];
	s->jobs[j].groups[1].count = 2;
	s->jobs[j].groups[1].gpus = 2;
	s->jobs[j].groups[1].one_per_node = false;
	ASSERT_EQ(fw_snapshot_slice_group(s, j, 0, 4, 1), 0);
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	const struct fw_decision *d = decision_of(p, j);
	ASSERT(d != NULL);
	ASSERT_EQ(d->alloc_count, 10);
	/* the 2-GPU tasks take the first rack's last two nodes, the slices
	 * of 4 need a rack each: racks with 6 nodes take one each */
	int per[3];
	tasks_per_rack(s, p, j, per, 3);
	ASSERT_EQ(per[0] + per[1] + per[2], 10);
	for (int k = 0; k < 8; k++)
		ASSERT_STR_EQ(s->nodes[p->allocs[d->alloc_first + k].node].path[1],
			      s->nodes[p->allocs[d->alloc_first + k / 4 * 4].node].path[1]);
	fw_snapshot_free(s);
}

TEST(a_reservation_keeps_slices_whole)
{
	struct fw_snapshot *s = racks(3, 4); /* 3 racks x 4 nodes */
	/* two nodes of each rack run until t=1000, 2000, 3000 */
	for (int r = 0; r < 3; r++) {
		char n[8];
		snprintf(n, sizeof n, "run%d", r);
		int x = gang(s, n, 2, 4, 0);
		int nodes[] = { 4 * r, 4 * r + 1 };
		tb_run(s, x, 2, nodes, 0xf);
		s->jobs[x].start_time = 0;
		s->jobs[x].expected_runtime = 1000 * (r + 1);
	}
	s->now = 10;
	/* 8 nodes in slices of 4 per rack: after t=1000 only rack 0 is whole
	 * (r1, r2 have 2 free each), so the reservation is at t=2000, racks
	 * 0 and 1; an unsliced gang would fit at t=1000 (4 + 2 + 2) */
	int j = gang(s, "wide", 8, 4, 5);
	s->jobs[j].expected_runtime = 100;
	ASSERT_EQ(fw_snapshot_slice_group(s, j, 0, 4, 1), 0);
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	const struct fw_decision *d = decision_of(p, j);
	ASSERT(d != NULL);
	ASSERT_EQ(d->kind, FW_DECIDE_RESERVE);
	ASSERT_EQ(d->at, 2000);
	ASSERT_EQ(p->pending[0].expected_start, 2000);
	s->nslices = 0;
	p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(decision_of(p, j)->at, 1000);
	fw_snapshot_free(s);
}

TEST(the_checker_catches_a_slice_split_over_two_domains_and_a_partial_slice)
{
	struct fw_snapshot *s = racks(2, 4);
	int j = gang(s, "g", 4, 4, 0);
	struct fw_diag d;
	ASSERT_EQ(fw_snapshot_slice_group(s, j, 0, 2, 1), 0);
	s->jobs[j].min_member = 2;
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	const struct fw_decision *dc = decision_of(p, j);
	ASSERT(dc != NULL);
	ASSERT_EQ(dc->alloc_count, 4);
	struct fw_task_alloc *t = &p->allocs[dc->alloc_first];
	int32_t keep = t[1].node;
	t[1].node = t[0].node < 4 ? 4 + 3 : 3; /* the other rack, a node no task holds */
	if (t[1].node == t[2].node || t[1].node == t[3].node)
		t[1].node = t[0].node < 4 ? 4 + 2 : 2;
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "slice 0 of group 0 spans");
	t[1].node = keep;
	ASSERT_OK(fw_plan_check(s, p, &A, &d));
	p->decisions[dc - p->decisions].alloc_count = 3; /* one slice and half */
	ASSERT_EQ(fw_plan_check(s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "not whole slices of 2");
	fw_snapshot_free(s);
}

TEST(slices_are_validated)
{
	struct fw_snapshot *s = racks(2, 4);
	int j = gang(s, "g", 6, 4, 0), k = gang(s, "h", 4, 4, 1);
	struct fw_diag d;

	ASSERT_EQ(fw_snapshot_slice_group(s, j, 0, 4, 1), FW_EINVAL); /* 4 does not divide 6 */
	ASSERT_EQ(fw_snapshot_slice_group(s, j, 0, 0, 1), FW_EINVAL);
	ASSERT_EQ(fw_snapshot_slice_group(s, j, 0, 3, 2), FW_EINVAL); /* no level 2 */
	ASSERT_EQ(fw_snapshot_slice_group(s, j, 1, 3, 1), FW_EINVAL); /* no group 1 */
	ASSERT_EQ(fw_snapshot_slice_group(s, j, 0, 3, FW_LEVEL_NONE), FW_EINVAL);
	ASSERT_EQ(s->nslices, 0);
	ASSERT_EQ(fw_snapshot_slice_group(s, k, 0, 2, 0), 0);
	ASSERT_EQ(fw_snapshot_slice_group(s, j, 0, 3, 1), FW_EINVAL); /* out of order */
	ASSERT_EQ(fw_snapshot_slices_entry(s, k), 0);
	ASSERT_EQ(fw_snapshot_slices_entry(s, j), -1);
	ASSERT_OK(fw_snapshot_validate(s, &d));
	s->slices[0].tasks = 3;
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.field, "slices[0].tasks");
	s->slices[0].tasks = 2;
	s->slices[0].level = 5;
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_ERANGE);
	ASSERT_STR_EQ(d.field, "slices[0].level");
	s->slices[0].level = FW_LEVEL_NODE;
	s->slices[0].group = 1;
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_ENOENT);
	ASSERT_STR_EQ(d.field, "slices[0].group");
	s->slices[0].group = 0;
	s->slices[0].job = 9;
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_ENOENT);
	ASSERT_STR_EQ(d.field, "slices[0]");
	fw_snapshot_free(s);
}

/* Racks of 4..8 nodes under two blocks, some nodes busy, gangs of every
 * size with and without slices (per node, rack or block), some spread,
 * some elastic, some with runtimes (reservations), some preemptible
 * running jobs in a second queue (reclaim). */
static struct fw_snapshot *random_sliced(uint32_t seed, int *nsliced)
{
	struct fw_snapshot *s = fw_snapshot_new();
	const char *lv[] = { "block", "rack" };
	uint32_t x = seed * 2654435761u + 7;
	int nn = 0;
#define RND() tb_xs32(&x)
	tb_levels(s, 2, lv);
	for (int r = 0; r < 6; r++) {
		int per = 4 + (int)(RND() % 5);
		for (int i = 0; i < per; i++, nn++) {
			char n[32], b[16], rk[16];
			snprintf(n, sizeof n, "n%02d", nn);
			snprintf(b, sizeof b, "b%d", r / 3);
			snprintf(rk, sizeof rk, "r%d", r);
			tb_node(s, n, (RND() % 3) ? 8 : 4, NULL, b, rk, NULL);
		}
	}
	int root = tb_queue(s, "root", -1, 8.0 * nn, -1, 1);
	tb_queue(s, "a", root, 7.5 * nn, -1, 1);
	tb_queue(s, "b", root, 0.5 * nn, -1, 1); /* above its share: reclaim takes from it */
	for (int n = 0; n < nn; n += 2) {
		char nm[16];
		snprintf(nm, sizeof nm, "run%02d", n);
		int id = tb_job(s, nm, 2, 1, 2, 1000, 0);
		tb_run(s, id, 1, &n, 0x3);
		s->jobs[id].start_time = 100;
		s->jobs[id].preemptible = RND() % 2;
		s->jobs[id].expected_runtime = 200 + (fw_time)(RND() % 5000);
	}
	/* running pairs in slices of 2 per rack, preemptible: reclaim may
	 * evict them, consolidation move them (a restart keeps to slices) */
	for (int n = 1; n + 2 < nn; n += 6) {
		char nm[16];
		int two[] = { n, n + 2 };
		if (strcmp(s->nodes[n].path[1], s->nodes[n + 2].path[1]))
			continue;
		snprintf(nm, sizeof nm, "pair%02d", n);
		int id = tb_job(s, nm, 2, 2, 2, 1000, 0);
		s->jobs[id].groups[0].one_per_node = true;
		tb_run(s, id, 2, two, 0x3);
		s->jobs[id].start_time = 100;
		s->jobs[id].preemptible = true;
		s->jobs[id].expected_runtime = 200 + (fw_time)(RND() % 5000);
		ASSERT(fw_snapshot_slice_group(s, id, 0, 2, 1) >= 0);
	}
	*nsliced = 0;
	for (int j = 0; j < 40; j++) {
		char n[16];
		int sizes[] = { 2, 4, 6, 8, 12, 16 }, tasks = sizes[RND() % 6];
		snprintf(n, sizeof n, "j%02d", j);
		int id = tb_job(s, n, 1 + (int)(RND() % 2), tasks, 1 + (int)(RND() % 4), 1000, 200 + j);
		s->jobs[id].groups[0].one_per_node = RND() % 2;
		s->jobs[id].spread = RND() % 5 == 0;
		s->jobs[id].min_member = RND() % 4 == 0 ? tasks / 2 : 0;
		s->jobs[id].required_level = (int8_t)((RND() % 3) - 1);
		s->jobs[id].expected_runtime = (RND() % 4) ? 60 + (fw_time)(RND() % 3600) : 0;
		if (RND() % 3) {
			int each = tasks % 4 == 0 && RND() % 2 ? 4 : 2;
			int level = (int)(RND() % 3) - 1;
			ASSERT(fw_snapshot_slice_group(s, id, 0, each, level < 0 ? FW_LEVEL_NODE : level) >= 0);
			++*nsliced;
		}
	}
	s->now = 300;
#undef RND
	return s;
}

TEST(random_sliced_snapshots_keep_every_invariant_and_are_deterministic)
{
	int started = 0, reserved = 0, sliced = 0, evicted = 0, moved = 0;
	for (uint32_t seed = 1; seed <= 60; seed++) {
		int n;
		struct fw_snapshot *s = random_sliced(seed, &n);
		sliced += n;
		const char *pols[] = { NULL, "fifo", "slurm", "kai" };
		for (int k = 0; k < 4; k++) {
			struct fw_arena b;
			struct fw_plan *p = run(s, pols[k]), *q = NULL;
			ASSERT(p != NULL);
			for (int i = 0; i < p->ndecisions; i++) {
				const struct fw_decision *d = &p->decisions[i];
				bool cut = false;
				for (int e = 0; e < s->nslices; e++)
					cut = cut || s->slices[e].job == d->job;
				started += cut && d->kind == FW_DECIDE_START;
				reserved += cut && d->kind == FW_DECIDE_RESERVE;
				evicted += cut && d->kind == FW_DECIDE_EVICT;
				moved += cut && d->kind == FW_DECIDE_EVICT && d->reason == FW_REASON_MOVED;
			}
			fw_arena_init(&b, 4096);
			ASSERT_OK(fw_cycle_run(s, pols[k] ? fw_policy_find(pols[k]) : NULL, &b, &q));
			ASSERT_EQ(p->ndecisions, q->ndecisions);
			ASSERT_EQ(p->nallocs, q->nallocs);
			ASSERT_OK(memcmp(p->allocs, q->allocs, (size_t)p->nallocs * sizeof *p->allocs));
			ASSERT_OK(memcmp(p->pending, q->pending, (size_t)p->npending * sizeof *p->pending));
			fw_arena_release(&b);
		}
		fw_snapshot_free(s);
	}
	ASSERT(sliced > 1000);
	ASSERT(started > 100); /* the checker really saw sliced starts ... */
	ASSERT(reserved > 20); /* ... and reservations */
	fprintf(stderr, "  sliced: %d started, %d reserved, %d evicted, %d moved\n", started, reserved, evicted, moved);
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
	a_gang_in_slices_of_16_takes_16_nodes_of_each_of_8_racks, \
	slices_fill_a_domain_before_the_next_and_leave_the_rest_whole, \
	slices_take_the_fullest_racks_first_and_the_emptiest_with_spread, \
	a_slice_no_domain_holds_never_starts_and_an_alike_job_without_slices_does, \
	jobs_sliced_unlike_are_told_apart, sliced_jobs_side_by_side_each_land_whole, a_node_level_slice_keeps_its_tasks_on_one_node, \
	an_elastic_sliced_gang_starts_whole_slices, a_second_group_without_slices_places_as_before, \
	a_reservation_keeps_slices_whole, the_checker_catches_a_slice_split_over_two_domains_and_a_partial_slice, \
	slices_are_validated, random_sliced_snapshots_keep_every_invariant_and_are_deterministic

int main(void)
{
	fw_test_fn fns[] = { TESTS };
	int rc;
	setup();
	rc = fw_test_main(FW_TEST__STR(TESTS), fns, (int)(sizeof fns / sizeof fns[0]));
	teardown();
	return rc;
}
