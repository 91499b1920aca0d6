/* test_model_deserved.c — the GPUs of a model a queue deserves
 * (snapshot.h fw_model_limit, snapshot.model_deserved; lib/preempt.c
 * "Deserved GPUs of a model"): the claim, the shield, and validation. */
#include <stdlib.h>

#include "builder.h"
#include "harness.h"

static struct fw_arena A;

static struct fw_plan *run(const struct fw_snapshot *s, const char *policy)
{
	return tb_plan(s, policy, &A);
}

static int deserve(struct fw_snapshot *s, int q, const char *model, double gpus)
{
	struct fw_model_limit m = tb_model_entry(q, model, gpus);
	return fw_snapshot_add_model_deserved(s, &m);
}

/* A running, preemptible job of one 8-GPU task on node n, started at t. */
static int running(struct fw_snapshot *s, const char *name, int q, int n, fw_time t)
{
	int j = tb_job(s, name, q, 1, 8, 1000, t);
	tb_run(s, j, 1, &n, 0xff);
	s->jobs[j].start_time = t;
	s->jobs[j].preemptible = true;
	return j;
}

/* Two H100 nodes (h0, h1) and two A100 nodes (a0, a1), 8 GPUs each.
 * Queues A and B deserve 16 GPUs each; A deserves them as H100s.  B runs
 * b0, b1 on the H100s (since t=100, 200), A runs x0, x1 on the A100s:
 * each queue holds its fair share, 16 GPUs. */
struct world {
	struct fw_snapshot *s;
	int h[2], a[2], qa, qb, b[2], x[2];
};

/* Nodes h0, h1 (H100) and a0, a1 (A100) of 8 GPUs each, on a new
 * snapshot. */
static struct fw_snapshot *four_nodes(int h[2], int a[2])
{
	struct fw_snapshot *s = fw_snapshot_new();
	h[0] = tb_node(s, "h0", 8, "H100", NULL, NULL, NULL);
	h[1] = tb_node(s, "h1", 8, "H100", NULL, NULL, NULL);
	a[0] = tb_node(s, "a0", 8, "A100", NULL, NULL, NULL);
	a[1] = tb_node(s, "a1", 8, "A100", NULL, NULL, NULL);
	return s;
}

static struct world world(double a_deserves_h100)
{
	struct world w;
	w.s = four_nodes(w.h, w.a);
	w.qa = tb_queue(w.s, "A", -1, 16, -1, 1);
	w.qb = tb_queue(w.s, "B", -1, 16, -1, 1);
	if (a_deserves_h100 > 0)
		deserve(w.s, w.qa, "H100", a_deserves_h100);
	w.s->now = 10000;
	w.b[0] = running(w.s, "b0", w.qb, w.h[0], 100);
	w.b[1] = running(w.s, "b1", w.qb, w.h[1], 200);
	w.x[0] = running(w.s, "x0", w.qa, w.a[0], 300);
	w.x[1] = running(w.s, "x1", w.qa, w.a[1], 400);
	return w;
}

/* A holds its fair share as A100s and waits for an H100 job: the fair
 * share gives it no claim, the 16 H100s it deserves do.  B's b1 (the
 * least work) is evicted for it, with reason MODEL_RECLAIMED. */
TEST(a_queue_below_its_deserved_h100s_takes_them_back)
{
	struct world w = world(16);
	int j = tb_named(w.s, tb_job(w.s, "j", w.qa, 1, 8, 1000, 5000), "H100");
	struct fw_plan *p = run(w.s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(p->ndecisions, 2);
	ASSERT_EQ(p->decisions[0].kind, FW_DECIDE_EVICT);
	ASSERT_EQ(p->decisions[0].reason, FW_REASON_MODEL_RECLAIMED);
	ASSERT_EQ(p->decisions[0].job, w.b[1]);
	ASSERT_EQ(p->decisions[0].a, j);
	ASSERT_EQ(p->decisions[0].b, w.qa);
	ASSERT_EQ(p->decisions[1].kind, FW_DECIDE_START);
	ASSERT_EQ(p->decisions[1].job, j);
	ASSERT_EQ(p->allocs[p->decisions[1].alloc_first].node, w.h[1]);
	char m[FW_REASON_TEXT_MAX];
	ASSERT_STR_CONTAINS(fw_reason_format(FW_REASON_MODEL_RECLAIMED, j, w.qa, m, sizeof m),
			    "holds more GPUs of a model than it deserves");
	/* the same world without the entry: A is at its fair share, no claim */
	w.s->nmodel_deserved = 0;
	p = run(w.s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(tb_count(p, FW_DECIDE_EVICT, FW_REASON_NONE), 0);
	ASSERT(tb_find(p, j, FW_DECIDE_START) == NULL);
	fw_snapshot_free(w.s);
}

/* A job that would earn a reservation claims first, in allocate: with
 * every runtime known, j is reserved for when b0 ends without the
 * entry, and with it starts now on b1's GPUs. */
TEST(a_claim_comes_before_a_reservation)
{
	struct world w = world(16);
	for (int i = 0; i < 2; i++) {
		w.s->jobs[w.b[i]].expected_runtime = 50000 + 1000 * i;
		w.s->jobs[w.x[i]].expected_runtime = 60000;
	}
	int j = tb_named(w.s, tb_job(w.s, "j", w.qa, 1, 8, 1000, 5000), "H100");
	w.s->jobs[j].expected_runtime = 1000;
	struct fw_plan *p = run(w.s, NULL);
	ASSERT(p != NULL);
	ASSERT(tb_find(p, j, FW_DECIDE_RESERVE) == NULL);
	ASSERT(tb_find(p, j, FW_DECIDE_START) != NULL);
	ASSERT_EQ(tb_find(p, w.b[1], FW_DECIDE_EVICT)->reason, FW_REASON_MODEL_RECLAIMED);
	w.s->nmodel_deserved = 0;
	p = run(w.s, NULL);
	ASSERT(p != NULL);
	ASSERT(tb_find(p, j, FW_DECIDE_START) == NULL);
	ASSERT_EQ(tb_find(p, j, FW_DECIDE_RESERVE)->at, 50100); /* b0 started at 100 */
	fw_snapshot_free(w.s);
}

/* A claim, too, waits for its victim's checkpoint within the grace:
 * b1 (since t=200, saving every hour) saves at t=11000, so j waits for
 * it (checkpoint_wait, expected then) rather than throw 2600 s of work
 * away; once it has saved, the claim evicts it. */
TEST(a_claim_waits_for_its_victims_checkpoint)
{
	struct world w = world(16);
	w.s->config.checkpoint_grace_s = 1200;
	for (int i = 0; i < 2; i++)
		w.s->jobs[w.b[i]].checkpoint_s = 3600;
	int j = tb_named(w.s, tb_job(w.s, "j", w.qa, 1, 8, 1000, 5000), "H100");
	struct fw_plan *p = run(w.s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(tb_count(p, FW_DECIDE_EVICT, FW_REASON_NONE), 0);
	ASSERT(tb_find(p, j, FW_DECIDE_RESERVE) == NULL);
	const struct fw_pending *r = fw_plan_pending_for(p, j);
	ASSERT_EQ(r->reason, FW_REASON_CHECKPOINT_WAIT);
	ASSERT_EQ(r->a, w.b[1]);
	ASSERT_EQ(r->b, 11000);
	ASSERT(r->expected_start != FW_TIME_UNKNOWN && r->expected_start <= 11000);
	w.s->now = 11060;
	p = run(w.s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(tb_find(p, w.b[1], FW_DECIDE_EVICT)->reason, FW_REASON_MODEL_RECLAIMED);
	ASSERT(tb_find(p, j, FW_DECIDE_START) != NULL);
	fw_snapshot_free(w.s);
}

/* Policies without reclaim never evict for it. */
TEST(policies_without_reclaim_make_no_claim)
{
	struct world w = world(16);
	tb_named(w.s, tb_job(w.s, "j", w.qa, 1, 8, 1000, 5000), "H100");
	const char *pols[] = { "fifo", "slurm" };
	for (int k = 0; k < 2; k++) {
		struct fw_plan *p = run(w.s, pols[k]);
		ASSERT(p != NULL);
		ASSERT_EQ(tb_count(p, FW_DECIDE_EVICT, FW_REASON_NONE), 0);
	}
	fw_snapshot_free(w.s);
}

/* A claim is for the whole job within what the line deserves: A
 * deserves 8 H100s and asks 16 (two tasks of 8): no claim. */
TEST(a_claim_needs_room_for_the_whole_job)
{
	struct world w = world(8);
	int j = tb_named(w.s, tb_job(w.s, "j", w.qa, 2, 8, 1000, 5000), "H100");
	struct fw_plan *p = run(w.s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(tb_count(p, FW_DECIDE_EVICT, FW_REASON_NONE), 0);
	ASSERT(tb_find(p, j, FW_DECIDE_START) == NULL);
	/* one task of 8: within the 8 deserved */
	w.s->jobs[j].groups[0].count = 1;
	p = run(w.s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(tb_count(p, FW_DECIDE_EVICT, FW_REASON_MODEL_RECLAIMED), 1);
	ASSERT(tb_find(p, j, FW_DECIDE_START) != NULL);
	fw_snapshot_free(w.s);
}

/* A job that names no model could run on any: it claims nothing (and A,
 * at its fair share, may not reclaim by it either). */
TEST(a_job_naming_no_model_claims_nothing)
{
	struct world w = world(16);
	int j = tb_job(w.s, "j", w.qa, 1, 8, 1000, 5000);
	struct fw_plan *p = run(w.s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(tb_count(p, FW_DECIDE_EVICT, FW_REASON_NONE), 0);
	ASSERT(tb_find(p, j, FW_DECIDE_START) == NULL);
	fw_snapshot_free(w.s);
}

/* A job with a group naming no model could put it anywhere: it claims
 * nothing, in allocate or in the reclaim phase, even when its other
 * group names H100.  Named all through, the same GPUs claim. */
TEST(a_job_with_a_group_naming_no_model_claims_nothing)
{
	struct world w = world(16);
	int j = tb_named(w.s, tb_job(w.s, "j", w.qa, 1, 4, 1000, 5000), "H100");
	struct fw_job *job = &w.s->jobs[j];
	job->ngroups = 2;
	job->groups[1] = job->groups[0];
	job->groups[1].gpu_model[0] = 0;
	struct fw_plan *p = run(w.s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(tb_count(p, FW_DECIDE_EVICT, FW_REASON_NONE), 0);
	ASSERT(tb_find(p, j, FW_DECIDE_START) == NULL);
	snprintf(w.s->jobs[j].groups[1].gpu_model, FW_NAME_MAX, "H100");
	p = run(w.s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(tb_count(p, FW_DECIDE_EVICT, FW_REASON_MODEL_RECLAIMED), 1);
	ASSERT(tb_find(p, j, FW_DECIDE_START) != NULL);
	fw_snapshot_free(w.s);
}

/* A victim whose queue holds no more of the model than it deserves is
 * shielded: B deserving its 16 H100s too, A's claim finds no victim. */
TEST(a_queue_at_what_it_deserves_of_a_model_is_no_victim)
{
	struct world w = world(16);
	deserve(w.s, w.qb, "H100", 16);
	int j = tb_named(w.s, tb_job(w.s, "j", w.qa, 1, 8, 1000, 5000), "H100");
	struct fw_plan *p = run(w.s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(tb_count(p, FW_DECIDE_EVICT, FW_REASON_NONE), 0);
	ASSERT(tb_find(p, j, FW_DECIDE_START) == NULL);
	/* deserving 8, B gives up one of its two */
	w.s->model_deserved[1].gpus = 8000;
	p = run(w.s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(tb_count(p, FW_DECIDE_EVICT, FW_REASON_MODEL_RECLAIMED), 1);
	ASSERT(tb_find(p, j, FW_DECIDE_START) != NULL);
	fw_snapshot_free(w.s);
}

/* After A took an H100 back (it holds h1 and both A100s, 24 GPUs over its
 * fair share, and B waits below its own), the fair-share reclaim may
 * take an A100 job of A for B, but never A's H100 job: losing it would
 * leave A under the H100s it deserves.  So B's job naming H100 finds no
 * victim, and B's job naming no model takes x1's A100s. */
TEST(the_shield_keeps_the_fair_share_reclaim_off_deserved_gpus)
{
	struct world w = world(16);
	struct fw_snapshot *s = w.s;
	int moved = w.b[1];
	s->jobs[moved].queue = w.qa; /* h1 now runs A's H100 job, since t=9000 */
	s->jobs[moved].start_time = 9000;
	int bj = tb_named(s, tb_job(s, "bj", w.qb, 1, 8, 1000, 9500), "H100");
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(tb_count(p, FW_DECIDE_EVICT, FW_REASON_NONE), 0);
	ASSERT(tb_find(p, bj, FW_DECIDE_START) == NULL);
	/* without the entry, the fair-share reclaim takes h1 back (A's least
	 * work since its start) */
	s->nmodel_deserved = 0;
	p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(tb_count(p, FW_DECIDE_EVICT, FW_REASON_RECLAIMED), 1);
	ASSERT(tb_find(p, moved, FW_DECIDE_EVICT) != NULL);
	s->nmodel_deserved = 1;
	/* a B job naming no model takes x1's A100s instead (not shielded) */
	s->jobs[bj].groups[0].gpu_model[0] = 0;
	p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(tb_count(p, FW_DECIDE_EVICT, FW_REASON_RECLAIMED), 1);
	ASSERT(tb_find(p, w.x[1], FW_DECIDE_EVICT) != NULL);
	ASSERT(tb_find(p, moved, FW_DECIDE_EVICT) == NULL);
	ASSERT(tb_find(p, bj, FW_DECIDE_START) != NULL);
	fw_snapshot_free(s);
}

/* Two H100 nodes (h) and two A100 nodes (a) of 8 GPUs; org (16 GPUs,
 * deserving them as H100s) over c1 and c2 (8 each), and B (16); t=10000. */
struct tree {
	struct fw_snapshot *s;
	int h[2], a[2], org, b, c1, c2;
};

static struct tree tree(void)
{
	struct tree t;
	t.s = four_nodes(t.h, t.a);
	t.org = tb_queue(t.s, "org", -1, 16, -1, 1);
	t.b = tb_queue(t.s, "B", -1, 16, -1, 1);
	t.c1 = tb_queue(t.s, "c1", t.org, 8, -1, 1);
	t.c2 = tb_queue(t.s, "c2", t.org, 8, -1, 1);
	deserve(t.s, t.org, "H100", 16);
	t.s->now = 10000;
	return t;
}

/* A parent's entry counts its subtree and claims only outside it: c1
 * (under org, which deserves 16 H100s) waits for an H100 job while its
 * sibling c2 holds h0 and B holds h1.  B's job is the victim, never
 * c2's, though c2's has the least work. */
TEST(a_parent_claims_for_its_children_but_not_from_them)
{
	struct tree t = tree();
	struct fw_snapshot *s = t.s;
	int h0 = t.h[0], h1 = t.h[1], a0 = t.a[0], a1 = t.a[1], b = t.b, c1 = t.c1, c2 = t.c2;
	int v2 = running(s, "v2", c2, h0, 9000), vb = running(s, "vb", b, h1, 100);
	running(s, "x0", c1, a0, 300);
	running(s, "x1", b, a1, 400);
	int j = tb_named(s, tb_job(s, "j", c1, 1, 8, 1000, 9500), "H100");
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(tb_count(p, FW_DECIDE_EVICT, FW_REASON_MODEL_RECLAIMED), 1);
	ASSERT(tb_find(p, vb, FW_DECIDE_EVICT) != NULL);
	ASSERT(tb_find(p, v2, FW_DECIDE_EVICT) == NULL);
	ASSERT(tb_find(p, j, FW_DECIDE_START) != NULL);
	/* org holding 16 H100s already (c2 on both nodes): no claim left */
	s->jobs[vb].queue = c2;
	p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(tb_count(p, FW_DECIDE_EVICT, FW_REASON_MODEL_RECLAIMED), 0);
	fw_snapshot_free(s);
}

/* The claim in allocate takes the claim's victims only; it does not
 * bring the fair-share reclaim forward.  c1's H100 job (org deserves 16
 * H100s and holds 8: room for it) finds no claim victim: B's H100 job is
 * not preemptible and c2's is under org too.  The fair-share rule would
 * take c2's (c2 holds 16 of a fair share of 8), but j, every runtime
 * known, earns a reservation instead, and a reserved job does not
 * reclaim.  Without runtimes it gets none, and the reclaim phase takes
 * c2's job (reason reclaimed). */
TEST(a_claim_in_allocate_takes_only_claim_victims)
{
	struct tree t = tree();
	struct fw_snapshot *s = t.s;
	int h0 = t.h[0], h1 = t.h[1], a0 = t.a[0], a1 = t.a[1], b = t.b, c1 = t.c1, c2 = t.c2;
	int v = running(s, "v", c2, h0, 9000);
	running(s, "w", c2, a0, 9000);
	int nb = running(s, "nb", b, h1, 100);
	s->jobs[nb].preemptible = false;
	running(s, "x", b, a1, 100);
	int j = tb_named(s, tb_job(s, "j", c1, 1, 8, 1000, 9500), "H100");
	for (int k = 0; k < s->njobs; k++)
		s->jobs[k].expected_runtime = 20000;
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(tb_count(p, FW_DECIDE_EVICT, FW_REASON_NONE), 0);
	ASSERT(tb_find(p, j, FW_DECIDE_RESERVE) != NULL);
	for (int k = 0; k < s->njobs; k++)
		s->jobs[k].expected_runtime = 0;
	p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT_EQ(tb_find(p, v, FW_DECIDE_EVICT)->reason, FW_REASON_RECLAIMED);
	ASSERT(tb_find(p, j, FW_DECIDE_START) != NULL);
	fw_snapshot_free(s);
}

/* Consolidation moves a job only onto the GPU model it left, so what a
 * queue holds of a model it deserves does not change: the 2 x 8 H100
 * gang g needs h0 whole, and the only room for s (4 GPUs of q there) is
 * on the A100 node.  With q deserving H100s, s stays and g waits;
 * without, s moves to c0 and g starts. */
TEST(a_moved_job_keeps_its_model)
{
	struct fw_snapshot *s = fw_snapshot_new();
	int h0 = tb_node(s, "h0", 8, "H100", NULL, NULL, NULL), h1 = tb_node(s, "h1", 8, "H100", NULL, NULL, NULL);
	int c0 = tb_node(s, "c0", 8, "A100", NULL, NULL, NULL);
	tb_node(s, "h2", 8, "H100", NULL, NULL, NULL);
	int q = tb_queue(s, "q", -1, 32, -1, 1);
	deserve(s, q, "H100", 8);
	s->now = 10000;
	int sj = tb_job(s, "s", q, 1, 4, 1000, 0), full = tb_job(s, "full", q, 1, 8, 1000, 0);
	tb_run(s, sj, 1, &h0, 0x0f);
	tb_run(s, full, 1, &h1, 0xff);
	s->jobs[sj].preemptible = true;
	int g = tb_named(s, tb_job(s, "g", q, 2, 8, 1000, 100), "H100");
	s->jobs[g].groups[0].one_per_node = true;
	struct fw_plan *p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT(tb_find(p, g, FW_DECIDE_START) == NULL);
	ASSERT(tb_find(p, sj, FW_DECIDE_EVICT) == NULL);
	s->nmodel_deserved = 0;
	p = run(s, NULL);
	ASSERT(p != NULL);
	ASSERT(tb_find(p, g, FW_DECIDE_START) != NULL);
	ASSERT_EQ(tb_find(p, sj, FW_DECIDE_EVICT)->reason, FW_REASON_MOVED);
	const struct fw_decision *r = tb_find(p, sj, FW_DECIDE_START);
	ASSERT(r != NULL);
	ASSERT_EQ(p->allocs[r->alloc_first].node, c0);
	fw_snapshot_free(s);
}

/* The checker recounts: the plan that took b1 for A's claim, read as if
 * B deserved 16 H100s, left B below them. */
TEST(the_checker_catches_an_eviction_below_what_a_queue_deserves)
{
	struct world w = world(16);
	tb_named(w.s, tb_job(w.s, "j", w.qa, 1, 8, 1000, 5000), "H100");
	struct fw_plan *p = run(w.s, NULL);
	struct fw_diag d;
	ASSERT(p != NULL);
	ASSERT_EQ(tb_count(p, FW_DECIDE_EVICT, FW_REASON_MODEL_RECLAIMED), 1);
	deserve(w.s, w.qb, "H100", 16);
	ASSERT_EQ(fw_plan_check(w.s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_EQ(d.field, "decisions[0]");
	ASSERT_STR_CONTAINS(d.msg, "job b1 was evicted for reclaim, leaving queue B below the H100 GPUs it deserves: "
				   "8000 < 16000 milli-GPU");
	w.s->model_deserved[1].gpus = 8000;
	ASSERT_EQ(fw_plan_check(w.s, p, &A, &d), FW_OK);
	fw_snapshot_free(w.s);
}

/* Deserved GPUs of a model are validated: a queue, a model, no two on
 * one queue and model, and at most the queue's deserved GPUs in all. */
TEST(deserved_gpus_of_a_model_are_validated)
{
	struct world w = world(16);
	struct fw_diag d;
	ASSERT_EQ(fw_snapshot_validate(w.s, &d), FW_OK);
	deserve(w.s, w.qa, "A100", 4);
	ASSERT_EQ(fw_snapshot_validate(w.s, &d), FW_ERANGE);
	ASSERT_STR_EQ(d.field, "model_deserved[0]");
	ASSERT_STR_CONTAINS(d.msg, "queue A deserves 20000 milli-GPU of named GPU models, more than its deserved 16000");
	w.s->model_deserved[0].gpus = 12000;
	ASSERT_EQ(fw_snapshot_validate(w.s, &d), FW_OK);
	deserve(w.s, w.qa, "H100", 1);
	ASSERT_EQ(fw_snapshot_validate(w.s, &d), FW_EEXIST);
	ASSERT_STR_CONTAINS(d.msg, "queue A: two deserved entries on GPU model H100");
	w.s->nmodel_deserved = 2;
	w.s->model_deserved[1].queue = 7;
	ASSERT_EQ(fw_snapshot_validate(w.s, &d), FW_ENOENT);
	ASSERT_STR_EQ(d.field, "model_deserved[1]");
	w.s->model_deserved[1].queue = w.qb;
	w.s->model_deserved[1].gpus = -1;
	ASSERT_EQ(fw_snapshot_validate(w.s, &d), FW_ERANGE);
	ASSERT_STR_CONTAINS(d.msg, "negative deserved on GPU model A100");
	w.s->model_deserved[1].gpus = 0;
	w.s->model_deserved[1].model[0] = 0;
	ASSERT_EQ(fw_snapshot_validate(w.s, &d), FW_EINVAL);
	fw_snapshot_free(w.s);
}

/* Random fleets of H100 and A100 nodes, queues deserving GPUs of either
 * model, running and waiting jobs that name one or none: every plan
 * passes the checker and repeats byte for byte, and every eviction for a
 * claim left the victim's queue at or above what it deserves of the
 * model and its preemptor's within what its own deserves. */
static bool claim_holds(const struct fw_snapshot *s, const struct fw_plan *p, int i)
{
	const struct fw_decision *e = &p->decisions[i];
	const struct fw_job *pj = &s->jobs[e->a];
	int64_t vheld = 0, pheld = 0, vd = -1, pd = -1;
	const char *model = pj->groups[0].gpu_model;
	int32_t vq = s->jobs[e->job].queue, pq = pj->queue;

	for (int k = 0; k < s->nmodel_deserved; k++) {
		if (strcmp(s->model_deserved[k].model, model))
			continue;
		vd = s->model_deserved[k].queue == vq ? s->model_deserved[k].gpus : vd;
		pd = s->model_deserved[k].queue == pq ? s->model_deserved[k].gpus : pd;
	}
	/* what the two queues hold of the model once the plan is applied */
	for (int32_t j = 0; j < s->njobs; j++) {
		bool gone = false, started = false;
		for (int d = 0; d < p->ndecisions; d++) {
			gone = gone || (p->decisions[d].job == j && p->decisions[d].kind == FW_DECIDE_EVICT);
			started = started || (p->decisions[d].job == j && p->decisions[d].kind == FW_DECIDE_START);
		}
		if (s->jobs[j].queue != vq && s->jobs[j].queue != pq)
			continue;
		int64_t *h = s->jobs[j].queue == vq ? &vheld : &pheld;
		if (s->jobs[j].state == FW_JOB_RUNNING && !gone)
			for (int t = 0; t < s->jobs[j].alloc_count; t++) {
				const struct fw_task_alloc *a = &s->allocs[s->jobs[j].alloc_first + t];
				if (!strcmp(s->nodes[a->node].gpu_model, model))
					*h += (int64_t)__builtin_popcount(a->gpu_mask) * a->gpu_milli;
			}
		for (int d = 0; started && d < p->ndecisions; d++)
			if (p->decisions[d].job == j && p->decisions[d].kind == FW_DECIDE_START)
				for (int t = 0; t < p->decisions[d].alloc_count; t++) {
					const struct fw_task_alloc *a = &p->allocs[p->decisions[d].alloc_first + t];
					if (!strcmp(s->nodes[a->node].gpu_model, model))
						*h += (int64_t)__builtin_popcount(a->gpu_mask) * a->gpu_milli;
				}
	}
	return pd >= 0 && pheld <= pd && vheld >= (vd < 0 ? 0 : vd);
}

TEST(random_fleets_keep_every_invariant_and_every_claim)
{
	uint32_t x = 2026;
	int claims = 0, plans = 0;
	for (int round = 0; round < 60; round++) {
		struct fw_snapshot *s = fw_snapshot_new();
		int nn = 4 + (int)(tb_xs32(&x) % 6), nq = 2 + (int)(tb_xs32(&x) % 3);
		for (int n = 0; n < nn; n++) {
			char name[16];
			snprintf(name, sizeof name, "n%d", n);
			tb_node(s, name, 8, n % 2 ? "A100" : "H100", NULL, NULL, NULL);
		}
		for (int q = 0; q < nq; q++) {
			char name[16];
			snprintf(name, sizeof name, "q%d", q);
			tb_queue(s, name, -1, 8.0 * nn / nq, -1, 1);
			if (tb_xs32(&x) % 2)
				deserve(s, q, q % 2 ? "A100" : "H100", 8.0 * (int)(nn / nq));
		}
		s->now = 100000;
		for (int n = 0; n < nn; n++) {
			if (tb_xs32(&x) % 4 == 0)
				continue;
			char name[16];
			snprintf(name, sizeof name, "r%d", n);
			int j = tb_job(s, name, (int)(tb_xs32(&x) % (uint32_t)nq), 1, 8, 1000,
				       (fw_time)(tb_xs32(&x) % 50000));
			tb_run(s, j, 1, &n, 0xff);
			s->jobs[j].start_time = s->jobs[j].submit_time + 1000;
			s->jobs[j].preemptible = tb_xs32(&x) % 5 != 0;
		}
		for (int k = 0; k < 6; k++) {
			char name[16];
			snprintf(name, sizeof name, "w%d", k);
			int j = tb_job(s, name, (int)(tb_xs32(&x) % (uint32_t)nq), 1 + (int)(tb_xs32(&x) % 2), 4, 1000,
				       60000 + k);
			uint32_t m = tb_xs32(&x) % 3;
			if (m)
				tb_named(s, j, m == 1 ? "H100" : "A100");
		}
		struct fw_plan *p = run(s, NULL);
		ASSERT(p != NULL);
		plans++;
		for (int i = 0; i < p->ndecisions; i++)
			if (p->decisions[i].kind == FW_DECIDE_EVICT && p->decisions[i].reason == FW_REASON_MODEL_RECLAIMED) {
				ASSERT(claim_holds(s, p, i));
				claims++;
			}
		struct fw_arena b;
		struct fw_plan *q = NULL;
		fw_arena_init(&b, 4096);
		ASSERT_OK(fw_cycle_run(s, NULL, &b, &q));
		ASSERT_EQ(p->ndecisions, q->ndecisions);
		for (int i = 0; i < p->ndecisions; i++) {
			const struct fw_decision *u = &p->decisions[i], *v = &q->decisions[i];
			ASSERT(u->kind == v->kind && u->reason == v->reason && u->job == v->job && u->at == v->at &&
			       u->a == v->a && u->b == v->b);
		}
		ASSERT_EQ(p->nallocs, q->nallocs);
		ASSERT_OK(memcmp(p->allocs, q->allocs, (size_t)p->nallocs * sizeof *p->allocs));
		ASSERT_OK(memcmp(p->pending, q->pending, (size_t)p->npending * sizeof *p->pending));
		fw_arena_release(&b);
		fw_snapshot_free(s);
	}
	ASSERT_EQ(plans, 60);
	fprintf(stderr, "  %d evictions for a claim in %d plans\n", claims, plans);
	ASSERT(claims > 5); /* the rounds do exercise the claim */
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
	a_queue_below_its_deserved_h100s_takes_them_back, a_claim_comes_before_a_reservation, \
	a_claim_waits_for_its_victims_checkpoint, \
	policies_without_reclaim_make_no_claim, \
	a_claim_needs_room_for_the_whole_job, a_job_naming_no_model_claims_nothing, \
	a_job_with_a_group_naming_no_model_claims_nothing, \
	a_queue_at_what_it_deserves_of_a_model_is_no_victim, the_shield_keeps_the_fair_share_reclaim_off_deserved_gpus, \
	a_parent_claims_for_its_children_but_not_from_them, a_claim_in_allocate_takes_only_claim_victims, \
	a_moved_job_keeps_its_model, the_checker_catches_an_eviction_below_what_a_queue_deserves, \
	deserved_gpus_of_a_model_are_validated, \
	random_fleets_keep_every_invariant_and_every_claim

int main(void)
{
	fw_test_fn fns[] = { TESTS };
	int rc;
	setup();
	rc = fw_test_main(FW_TEST__STR(TESTS), fns, (int)(sizeof fns / sizeof fns[0]));
	teardown();
	return rc;
}
