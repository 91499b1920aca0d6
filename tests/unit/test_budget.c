/* test_budget.c — GPU-hour budgets (snapshot.h fw_queue.gpu_hour_budget;
 * lib/cycle.c budget_mark, cycle_int.h fw__over_budget): while a queue's
 * subtree has used its budget (decayed usage at now), no job under it
 * starts (OVER_BUDGET, no estimate, no reservation, no eviction for it)
 * and its waiting jobs demand nothing in fair share; running jobs run
 * on; the checker recounts it.  Under config.budget_safe a job starts
 * only if its whole run fits what the budget has left after the usage
 * and the running jobs' remaining runs (BUDGET_SHORT). */
#include <math.h>
#include <stdlib.h>

#include "builder.h"
#include "harness.h"

static struct fw_arena A;

static const char *const POLICIES[] = { "fairway", "kai", "slurm", "fifo" };

#define H 3600.0
#define WEEK (7 * 86400)

/* Two 8-GPU nodes; queue Q with a budget of `budget` GPU-hours that has
 * used `used` (as of now); w (8 GPUs) waits. */
struct world {
	struct fw_snapshot *s;
	int q, w;
};

static struct world world(double budget, double used)
{
	struct world x;
	x.s = fw_snapshot_new();
	tb_node(x.s, "n0", 8, "H100", NULL, NULL, NULL);
	tb_node(x.s, "n1", 8, "H100", NULL, NULL, NULL);
	x.q = tb_queue(x.s, "Q", -1, 16, -1, 1);
	x.s->now = 1000000;
	x.s->queues[x.q].gpu_hour_budget = budget;
	x.s->queues[x.q].usage = used * H;
	x.s->queues[x.q].usage_at = x.s->now;
	x.w = tb_job(x.s, "w", x.q, 1, 8, 1000, 50);
	x.s->jobs[x.w].expected_runtime = 3600;
	return x;
}

/* Job j's pending record in a fairway plan of s; NULL when the plan
 * fails or j is not pending. */
static const struct fw_pending *plan_pending(struct fw_snapshot *s, int32_t j)
{
	struct fw_plan *p = tb_plan(s, "fairway", &A);

	return p ? fw_plan_pending_for(p, j) : NULL;
}

/* x planned under fairway, a plan the checker passes (else -1); then w's
 * estimate moved to t: the checker's verdict on that, its message in d. */
static int check_moved_estimate(struct world *x, fw_time t, struct fw_diag *d)
{
	struct fw_plan *p = tb_plan(x->s, "fairway", &A);

	if (!p || fw_plan_check(x->s, p, &A, d) != FW_OK)
		return -1;
	for (int32_t i = 0; i < p->npending; i++)
		if (p->pending[i].job == x->w)
			p->pending[i].expected_start = t;
	return fw_plan_check(x->s, p, &A, d);
}

/* At its budget a queue starts nothing, under every policy: the job
 * waits, over_budget with the used and budgeted GPU-hours, expected the
 * second its usage decays below the budget (here the next: it is at it,
 * and nothing of it runs).  Just under it, the job starts. */
TEST(a_queue_at_its_budget_starts_nothing)
{
	for (size_t i = 0; i < sizeof POLICIES / sizeof POLICIES[0]; i++) {
		struct world x = world(100, 100);
		struct fw_plan *p = tb_plan(x.s, POLICIES[i], &A);
		ASSERT(p != NULL);
		ASSERT(tb_find(p, x.w, FW_DECIDE_START) == NULL);
		const struct fw_pending *r = fw_plan_pending_for(p, x.w);
		ASSERT(r != NULL);
		ASSERT_EQ(r->reason, FW_REASON_OVER_BUDGET);
		ASSERT_EQ(r->a, 100);
		ASSERT_EQ(r->b, 100);
		ASSERT_EQ(r->expected_start, x.s->now + 1);
		ASSERT_EQ(r->unknown_why, FW_REASON_NONE);
		ASSERT_EQ(p->ndecisions, 0); /* no reservation either */
		x.s->queues[x.q].usage = 99.99 * H;
		p = tb_plan(x.s, POLICIES[i], &A);
		ASSERT(p != NULL);
		ASSERT(tb_find(p, x.w, FW_DECIDE_START) != NULL);
		fw_snapshot_free(x.s);
	}
}

/* Usage decays to now: 200 GPU-hours a half-life ago are 100 now, at a
 * budget of 100 (held) but under one of 101 (started). */
TEST(the_budget_counts_usage_decayed_to_now)
{
	struct world x = world(100, 200);
	x.s->config.usage_half_life_s = WEEK;
	x.s->queues[x.q].usage_at = x.s->now - WEEK;
	struct fw_plan *p = tb_plan(x.s, "fairway", &A);
	ASSERT(p != NULL);
	ASSERT_EQ(fw_plan_pending_for(p, x.w)->reason, FW_REASON_OVER_BUDGET);
	ASSERT_EQ(fw_plan_pending_for(p, x.w)->a, 100);
	x.s->queues[x.q].gpu_hour_budget = 101;
	p = tb_plan(x.s, "fairway", &A);
	ASSERT(p != NULL);
	ASSERT(tb_find(p, x.w, FW_DECIDE_START) != NULL);
	fw_snapshot_free(x.s);
}

/* When will a held job start?  When its queue's usage has decayed below
 * the budget, its running jobs feeding it until their expected ends (one
 * with none, for ever: then unknown), and not before its GPUs are free.
 * Budget 100 GPU-h, 200 used, half-life a week (h). */
TEST(a_held_job_is_expected_when_the_usage_falls_below_the_budget)
{
	const double h = WEEK, B = 100 * H, sd = 8 * h / log(2.0);
	struct world x = world(100, 200);
	x.s->config.usage_half_life_s = h;
	/* nothing of Q runs: 200 x 2^(-t/h) < 100 from t = h on */
	struct fw_plan *p = tb_plan(x.s, "fairway", &A);
	ASSERT(p != NULL);
	const struct fw_pending *r = fw_plan_pending_for(p, x.w);
	ASSERT_EQ(r->reason, FW_REASON_OVER_BUDGET);
	ASSERT_EQ(r->expected_start, x.s->now + WEEK + 1);
	/* r0 of Q runs 8 GPUs for another day: its usage grows towards
	 * 8 h / ln 2, then decays from what it reached */
	int n1 = 1;
	int r0 = tb_job(x.s, "r0", x.q, 1, 8, 1000, 10);
	tb_run(x.s, r0, 1, &n1, 0xff);
	x.s->jobs[r0].start_time = x.s->now - 100;
	x.s->jobs[r0].expected_runtime = 86400 + 100;
	double u1 = sd + (200 * H - sd) * exp2(-86400 / h);
	fw_time want = (fw_time)floor((double)x.s->now + 86400 + h * log2(u1 / B)) + 1;
	p = tb_plan(x.s, "fairway", &A);
	ASSERT(p != NULL);
	r = fw_plan_pending_for(p, x.w);
	ASSERT_EQ(r->reason, FW_REASON_OVER_BUDGET);
	ASSERT_EQ(r->expected_start, want);
	ASSERT(want > x.s->now + WEEK + 86400); /* later than without r0 */
	/* r0 with no end: its usage tends to 8 h / ln 2 > 100 GPU-h, never below */
	x.s->jobs[r0].expected_runtime = 0;
	p = tb_plan(x.s, "fairway", &A);
	ASSERT(p != NULL);
	r = fw_plan_pending_for(p, x.w);
	ASSERT_EQ(r->expected_start, FW_TIME_UNKNOWN);
	ASSERT_EQ(r->unknown_why, FW_REASON_OVER_BUDGET);
	ASSERT_EQ(r->why_a, 200);
	ASSERT_EQ(r->why_b, 100);
	/* r0 of another queue holds n1 for three weeks and w needs both
	 * nodes: w is expected when n1 frees, after the budget allows it */
	int P = tb_queue(x.s, "P", -1, 0, -1, 1);
	x.s->jobs[r0].queue = P;
	x.s->jobs[r0].expected_runtime = 3 * WEEK + 100;
	x.s->jobs[x.w].groups[0].count = 2;
	p = tb_plan(x.s, "fairway", &A);
	ASSERT(p != NULL);
	r = fw_plan_pending_for(p, x.w);
	ASSERT_EQ(r->reason, FW_REASON_OVER_BUDGET);
	ASSERT_EQ(r->expected_start, x.s->now + 3 * WEEK);
	fw_snapshot_free(x.s);
}

/* The checker holds the estimate to the soonest the usage alone could
 * fall below the budget. */
TEST(the_checker_refuses_a_held_job_expected_too_soon)
{
	struct fw_diag d;
	struct world x = world(100, 200);
	x.s->config.usage_half_life_s = WEEK;
	ASSERT_EQ(check_moved_estimate(&x, x.s->now + WEEK - 10, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "job w is expected at t=1604790, but queue Q's usage is over its budget until "
				   "t=1604800 at the soonest");
	x.s->config.utc_times = true; /* a Unix clock's texts: UTC dates, the bound to the second */
	ASSERT_EQ(check_moved_estimate(&x, x.s->now + WEEK - 10, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "job w is expected at 1970-01-19T13:46:30Z, but queue Q's usage is over its "
				   "budget until 1970-01-19T13:46:40Z at the soonest");
	fw_snapshot_free(x.s);
}

/* A parent's budget counts its whole subtree and holds every queue under
 * it; a queue under another parent starts. */
TEST(a_parents_budget_holds_its_subtree)
{
	struct fw_snapshot *s = fw_snapshot_new();
	tb_node(s, "n0", 8, "H100", NULL, NULL, NULL);
	tb_node(s, "n1", 8, "H100", NULL, NULL, NULL);
	tb_node(s, "n2", 8, "H100", NULL, NULL, NULL);
	int org = tb_queue(s, "org", -1, 16, -1, 1);
	int a = tb_queue(s, "a", org, 8, -1, 1);
	int b = tb_queue(s, "b", org, 8, -1, 1);
	int other = tb_queue(s, "other", -1, 8, -1, 1);
	s->now = 1000000;
	s->queues[org].gpu_hour_budget = 100;
	s->queues[a].usage = 60 * H;
	s->queues[b].usage = 50 * H;
	s->queues[other].usage = 5000 * H; /* no budget of its own */
	for (int q = 0; q < s->nqueues; q++)
		s->queues[q].usage_at = s->now;
	int ja = tb_job(s, "ja", a, 1, 8, 1000, 10);
	int jb = tb_job(s, "jb", b, 1, 8, 1000, 20);
	int jo = tb_job(s, "jo", other, 1, 8, 1000, 30);
	struct fw_plan *p = tb_plan(s, "fairway", &A);
	ASSERT(p != NULL);
	ASSERT(tb_find(p, jo, FW_DECIDE_START) != NULL);
	for (int k = 0; k < 2; k++) {
		const struct fw_pending *r = fw_plan_pending_for(p, k ? jb : ja);
		ASSERT(r != NULL);
		ASSERT_EQ(r->reason, FW_REASON_OVER_BUDGET);
		ASSERT_EQ(r->a, 110);
		ASSERT_EQ(r->b, 100);
	}
	/* the held queues demand nothing in fair share */
	ASSERT_EQ(p->queues[a].demand.v[FW_RES_GPU], 0);
	ASSERT_EQ(p->queues[org].demand.v[FW_RES_GPU], 0);
	ASSERT_EQ(p->queues[other].demand.v[FW_RES_GPU], 8000);
	/* a budget on the child alone, with room: only the parent's counts */
	s->queues[org].gpu_hour_budget = 0;
	s->queues[a].gpu_hour_budget = 61;
	p = tb_plan(s, "fairway", &A);
	ASSERT(p != NULL);
	ASSERT(tb_find(p, ja, FW_DECIDE_START) != NULL);
	ASSERT(tb_find(p, jb, FW_DECIDE_START) != NULL);
	fw_snapshot_free(s);
}

/* A running job of a queue over its budget runs on; a higher-priority
 * job of that queue preempts nothing for itself, and a starving job of
 * the held queue reclaims nothing from another queue. */
TEST(running_jobs_run_on_and_nothing_is_evicted_for_a_held_job)
{
	struct fw_snapshot *s = fw_snapshot_new();
	int n0 = tb_node(s, "n0", 8, "H100", NULL, NULL, NULL);
	int n1 = tb_node(s, "n1", 8, "H100", NULL, NULL, NULL);
	int held = tb_queue(s, "held", -1, 16, -1, 1);
	int busy = tb_queue(s, "busy", -1, 0, -1, 1);
	s->now = 1000000;
	s->queues[held].gpu_hour_budget = 10;
	s->queues[held].usage = 20 * H;
	s->queues[held].usage_at = s->now;
	int r0 = tb_job(s, "r0", held, 1, 8, 1000, s->now - 200);
	tb_run(s, r0, 1, &n0, 0xff);
	s->jobs[r0].start_time = s->now - 100;
	s->jobs[r0].preemptible = true;
	int r1 = tb_job(s, "r1", busy, 1, 8, 1000, s->now - 200); /* not starved: a victim */
	tb_run(s, r1, 1, &n1, 0xff);
	s->jobs[r1].start_time = s->now - 100;
	s->jobs[r1].preemptible = true;
	int hi = tb_job(s, "hi", held, 1, 8, 1000, 50);
	s->jobs[hi].priority = 100;
	for (size_t i = 0; i < sizeof POLICIES / sizeof POLICIES[0]; i++) {
		struct fw_plan *p = tb_plan(s, POLICIES[i], &A);
		ASSERT(p != NULL);
		ASSERT_EQ(p->ndecisions, 0);
		ASSERT_EQ(fw_plan_pending_for(p, hi)->reason, FW_REASON_OVER_BUDGET);
		ASSERT_EQ(p->queues[held].allocated.v[FW_RES_GPU], 8000);
	}
	/* without the budget, hi preempts r0 (a lower priority of its queue)
	 * and starts */
	s->queues[held].gpu_hour_budget = 0;
	struct fw_plan *p = tb_plan(s, "fairway", &A);
	ASSERT(p != NULL);
	ASSERT(tb_find(p, r0, FW_DECIDE_EVICT) != NULL);
	ASSERT(tb_find(p, hi, FW_DECIDE_START) != NULL);
	/* and with r0 protected (not preemptible), held (deserving 16)
	 * reclaims busy's r1 */
	s->jobs[r0].preemptible = false;
	p = tb_plan(s, "fairway", &A);
	ASSERT(p != NULL);
	ASSERT_EQ(tb_find(p, r1, FW_DECIDE_EVICT)->reason, FW_REASON_RECLAIMED);
	ASSERT(tb_find(p, hi, FW_DECIDE_START) != NULL);
	s->queues[held].gpu_hour_budget = 10; /* and with it, nothing */
	p = tb_plan(s, "fairway", &A);
	ASSERT(p != NULL);
	ASSERT_EQ(p->ndecisions, 0);
	fw_snapshot_free(s);
}

/* The checker recounts the budgets: a plan made without one fails once
 * the budget is set; a moved running job's restart is no start. */
TEST(the_checker_refuses_a_start_over_a_budget)
{
	struct fw_diag d;
	struct world x = world(0, 100);
	struct fw_plan *p = tb_plan(x.s, "fairway", &A);
	ASSERT(p != NULL);
	ASSERT(tb_find(p, x.w, FW_DECIDE_START) != NULL);
	x.s->queues[x.q].gpu_hour_budget = 100;
	ASSERT_EQ(fw_plan_check(x.s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "job w starts though queue Q has used 100.0 GPU-hours of its budget of 100");
	x.s->queues[x.q].gpu_hour_budget = 100.5;
	ASSERT_EQ(fw_plan_check(x.s, p, &A, &d), FW_OK);
	fw_snapshot_free(x.s);
}

TEST(a_bad_budget_is_refused)
{
	struct fw_diag d;
	const double bad[] = { -1, 2e9, NAN, INFINITY };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct world x = world(bad[i], 0);
		ASSERT_EQ(fw_snapshot_validate(x.s, &d), FW_ERANGE);
		ASSERT_STR_CONTAINS(d.msg, "gpuHourBudget");
		ASSERT_STR_EQ(d.field, "queues[0]");
		fw_snapshot_free(x.s);
	}
	struct world x = world(1e9, 0);
	ASSERT_EQ(fw_snapshot_validate(x.s, &d), FW_OK);
	fw_snapshot_free(x.s);
}

/* A random fleet for the random tests: 2..6 nodes of 8 GPUs, a root
 * with a budget one time in three, 2..4 leaf queues with random budgets
 * and usage, some nodes busy with a running job, 8 waiting jobs.  Safe:
 * budgetSafe on, less usage, and some running jobs with a 1 h limit. */
static struct fw_snapshot *random_fleet(uint32_t *seed, bool safe)
{
	struct fw_snapshot *s = fw_snapshot_new();
	int nn = 2 + (int)(tb_xs32(seed) % 5), nq = 2 + (int)(tb_xs32(seed) % 3);
	for (int n = 0; n < nn; n++) {
		char name[16];
		snprintf(name, sizeof name, "n%d", n);
		tb_node(s, name, 8, "H100", NULL, NULL, NULL);
	}
	s->now = 1000000;
	s->config.usage_half_life_s = 86400;
	s->config.budget_safe = safe;
	int root = tb_queue(s, "root", -1, 8.0 * nn, -1, 1);
	s->queues[root].gpu_hour_budget = tb_xs32(seed) % 3 ? 0 : safe ? 150 : 100;
	s->queues[root].usage_at = s->now;
	for (int q = 0; q < nq; q++) {
		char name[16];
		snprintf(name, sizeof name, "q%d", q);
		int k = tb_queue(s, name, root, 8.0 * nn / nq, -1, 1);
		s->queues[k].gpu_hour_budget = (double)(tb_xs32(seed) % 3) * 40;
		s->queues[k].usage = (double)(tb_xs32(seed) % (safe ? 60 : 120)) * H;
		s->queues[k].usage_at = s->now - (fw_time)(tb_xs32(seed) % 86400);
	}
	for (int n = 0; n < nn; n++) {
		char name[16];
		snprintf(name, sizeof name, "r%d", n);
		if (tb_xs32(seed) % 2) {
			int j = tb_job(s, name, 1 + (int)(tb_xs32(seed) % (uint32_t)nq), 1, 8, 1000, n);
			tb_run(s, j, 1, &n, 0xff);
			s->jobs[j].start_time = s->now - 100;
			s->jobs[j].preemptible = true;
			s->jobs[j].expected_runtime = 1000 + (fw_time)(tb_xs32(seed) % 5000);
			if (safe)
				s->jobs[j].max_runtime_s = tb_xs32(seed) % 2 ? 3600 : 0;
		}
	}
	for (int k = 0; k < 8; k++) {
		char name[16];
		snprintf(name, sizeof name, "w%d", k);
		int j = tb_job(s, name, 1 + (int)(tb_xs32(seed) % (uint32_t)nq), 1 + (int)(tb_xs32(seed) % 2), 8, 1000,
			       100 + k);
		s->jobs[j].expected_runtime = 600 + (fw_time)(tb_xs32(seed) % 5000);
		s->jobs[j].priority = (int32_t)(tb_xs32(seed) % 3);
	}
	return s;
}

/* Has a queue on job j's way up used its budget (decayed, at now)? */
static bool held_over(const struct fw_snapshot *s, int j)
{
	bool over = false;
	for (int q = s->jobs[j].queue; q >= 0; q = s->queues[q].parent) {
		double used = 0;
		for (int k = 0; k < s->nqueues; k++) /* k in q's subtree? */
			for (int a = k; a >= 0; a = s->queues[a].parent)
				if (a == q)
					used += fw_usage_decay(s->queues[k].usage, s->queues[k].usage_at, s->now,
							       s->config.usage_half_life_s);
		over = over || (s->queues[q].gpu_hour_budget > 0 && used >= s->queues[q].gpu_hour_budget * H);
	}
	return over;
}

/* Random fleets with random budgets and usage: every plan passes the
 * checker, is the same when run again, and starts no job under a queue
 * that has used its budget, whose jobs all wait over_budget (under fifo
 * a job behind the line's head may keep head_of_line, as with no
 * estimates: reasons_behind_a_strict_head_do_not_depend_on_estimates). */
TEST(random_fleets_start_nothing_over_a_budget)
{
	uint32_t seed = 777;
	int held = 0, started = 0;
	for (int round = 0; round < 60; round++) {
		struct fw_snapshot *s = random_fleet(&seed, false);
		const char *pol = POLICIES[round % 4];
		struct fw_plan *p = tb_plan(s, pol, &A);
		ASSERT(p != NULL);
		for (int j = 0; j < s->njobs; j++) {
			if (s->jobs[j].state != FW_JOB_PENDING)
				continue;
			bool over = held_over(s, j);
			const struct fw_decision *st = tb_find(p, j, FW_DECIDE_START);
			if (over) {
				enum fw_reason why = fw_plan_pending_for(p, j)->reason;
				ASSERT(st == NULL);
				if (why != FW_REASON_HEAD_OF_LINE || strcmp(pol, "fifo") != 0)
					ASSERT_EQ(why, FW_REASON_OVER_BUDGET);
				held++;
			} else {
				ASSERT(fw_plan_pending_for(p, j) == NULL ||
				       fw_plan_pending_for(p, j)->reason != FW_REASON_OVER_BUDGET);
				started += st != NULL;
			}
		}
		ASSERT(tb_replans_same(s, pol, p, &A));
		fw_snapshot_free(s);
	}
	ASSERT(held >= 40);    /* the rounds did hold jobs */
	ASSERT(started >= 40); /* and started others */
}

/* Under fifo's strict order the jobs behind the line's head are not
 * tried: they wait head_of_line.  The estimate phase gives each its
 * start (no sooner than its budget allows) but keeps that label, so a
 * job whose start it knows waits for the same reason with estimates on
 * and off (only an unknown start says why it is unknown, here over or
 * short of a budget).  Random fleets, budgetSafe off and on. */
TEST(reasons_behind_a_strict_head_do_not_depend_on_estimates)
{
	uint32_t seed = 4242;
	int behind = 0, floored = 0;
	struct fw_arena b;
	fw_arena_init(&b, 0);
	for (int round = 0; round < 80; round++) {
		struct fw_snapshot *s = random_fleet(&seed, round % 2);
		struct fw_plan *on = tb_plan(s, "fifo", &A);
		ASSERT(on != NULL);
		s->config.estimate_starts = false;
		struct fw_plan *off = tb_plan(s, "fifo", &b);
		ASSERT(off != NULL);
		for (int j = 0; j < s->njobs; j++) {
			const struct fw_pending *x = fw_plan_pending_for(on, j), *y = fw_plan_pending_for(off, j);
			if (!x || s->jobs[j].state != FW_JOB_PENDING || x->expected_start == FW_TIME_UNKNOWN)
				continue;
			ASSERT(y != NULL);
			ASSERT_EQ(x->reason, y->reason);
			ASSERT_EQ(x->a, y->a);
			ASSERT_EQ(x->b, y->b);
			behind += x->reason == FW_REASON_HEAD_OF_LINE;
			/* a queue over its budget still floors the start: not
			 * before its usage has decayed below it */
			if (x->reason == FW_REASON_HEAD_OF_LINE && held_over(s, j)) {
				ASSERT(x->expected_start > s->now);
				floored++;
			}
		}
		fw_arena_reset(&b);
		fw_snapshot_free(s);
	}
	fw_arena_release(&b);
	ASSERT(behind >= 40); /* the rounds did put jobs behind a head */
	ASSERT(floored >= 5); /* some of them over a budget, with a start */
}

/* ---- budgetSafe (config.budget_safe; Slurm's AccountingStorageEnforce=
 * safe): a job starts only if its whole run fits what is left ---------- */

/* World x in safe mode, its w's run bounded by runtime rt (no limit). */
static struct world safe_world(double budget, double used, fw_time rt)
{
	struct world x = world(budget, used);
	x.s->config.budget_safe = true;
	x.s->jobs[x.w].expected_runtime = rt;
	return x;
}

/* w's 8 GPUs for 1 h (8 GPU-h) fit the 10 left of 100 after 90 used;
 * for 2 h (16) they do not: budget_short with [16, 10], no reservation,
 * expected when the decay of the 90 used has left 16 (nothing runs, so
 * left = 100 - 90 x 2^(-d/h)).  Without budgetSafe it starts (the usage is
 * under the budget); with a 1 h run-time limit it starts (the limit
 * bounds it). */
TEST(safe_a_job_starts_only_if_its_whole_run_fits)
{
	for (size_t i = 0; i < sizeof POLICIES / sizeof POLICIES[0]; i++) {
		struct world x = safe_world(100, 90, 3600);
		struct fw_plan *p = tb_plan(x.s, POLICIES[i], &A);
		ASSERT(p != NULL);
		ASSERT(tb_find(p, x.w, FW_DECIDE_START) != NULL);
		x.s->jobs[x.w].expected_runtime = 7200;
		p = tb_plan(x.s, POLICIES[i], &A);
		ASSERT(p != NULL);
		ASSERT_EQ(p->ndecisions, 0);
		const struct fw_pending *r = fw_plan_pending_for(p, x.w);
		ASSERT(r != NULL);
		ASSERT_EQ(r->reason, FW_REASON_BUDGET_SHORT);
		ASSERT_EQ(r->a, 16);
		ASSERT_EQ(r->b, 10);
		double h = x.s->config.usage_half_life_s, at = (double)x.s->now + h * log2(90.0 / 84.0);
		ASSERT(r->expected_start >= (fw_time)at && r->expected_start <= (fw_time)at + 1);
		ASSERT_EQ(r->unknown_why, FW_REASON_NONE);
		ASSERT_EQ(p->queues[x.q].demand.v[FW_RES_GPU], 0); /* it demands nothing */
		x.s->jobs[x.w].max_runtime_s = 3600;
		p = tb_plan(x.s, POLICIES[i], &A);
		ASSERT(p != NULL);
		ASSERT(tb_find(p, x.w, FW_DECIDE_START) != NULL);
		x.s->jobs[x.w].max_runtime_s = 0;
		x.s->config.budget_safe = false;
		p = tb_plan(x.s, POLICIES[i], &A);
		ASSERT(p != NULL);
		ASSERT(tb_find(p, x.w, FW_DECIDE_START) != NULL);
		fw_snapshot_free(x.s);
	}
}

/* A running job counts what it may still use: 8 GPUs with a 3 h limit,
 * 1 h run, hold 16 GPU-h of the 20 left (80 used of 100), so w's 8 do
 * not fit ([8, 4]); with a 2 h limit (8 held) they do.  Its runtime, not
 * its limit, bounds it when it has no limit. */
TEST(safe_running_jobs_count_what_they_may_still_use)
{
	struct world x = safe_world(100, 80, 3600);
	int n0 = 0;
	int r0 = tb_job(x.s, "r0", x.q, 1, 8, 1000, 10);
	tb_run(x.s, r0, 1, &n0, 0xff);
	x.s->jobs[r0].start_time = x.s->now - 3600;
	x.s->jobs[r0].max_runtime_s = 3 * 3600;
	struct fw_plan *p = tb_plan(x.s, "fairway", &A);
	ASSERT(p != NULL);
	const struct fw_pending *r = fw_plan_pending_for(p, x.w);
	ASSERT(r != NULL);
	ASSERT_EQ(r->reason, FW_REASON_BUDGET_SHORT);
	ASSERT_EQ(r->a, 8);
	ASSERT_EQ(r->b, 4);
	x.s->jobs[r0].max_runtime_s = 2 * 3600;
	p = tb_plan(x.s, "fairway", &A);
	ASSERT(p != NULL);
	ASSERT(tb_find(p, x.w, FW_DECIDE_START) != NULL);
	x.s->jobs[r0].max_runtime_s = 0;
	x.s->jobs[r0].expected_runtime = 4 * 3600; /* 24 GPU-h still to come */
	p = tb_plan(x.s, "fairway", &A);
	ASSERT(p != NULL);
	ASSERT_EQ(fw_plan_pending_for(p, x.w)->reason, FW_REASON_BUDGET_SHORT);
	ASSERT_EQ(fw_plan_pending_for(p, x.w)->b, 0); /* over: none left */
	/* a job past its runtime holds nothing more */
	x.s->jobs[r0].expected_runtime = 1800;
	p = tb_plan(x.s, "fairway", &A);
	ASSERT(p != NULL);
	ASSERT(tb_find(p, x.w, FW_DECIDE_START) != NULL);
	fw_snapshot_free(x.s);
}

/* The starts of one cycle share what is left, in the order they are
 * made: of two 8 GPU-h jobs with 12 left, one starts and the other
 * waits [8, 4]; a parent's budget counts its children's starts. */
TEST(safe_starts_in_one_cycle_share_what_is_left)
{
	struct fw_snapshot *s = fw_snapshot_new();
	tb_node(s, "n0", 8, "H100", NULL, NULL, NULL);
	tb_node(s, "n1", 8, "H100", NULL, NULL, NULL);
	int org = tb_queue(s, "org", -1, 16, -1, 1);
	int a = tb_queue(s, "a", org, 8, -1, 1);
	int b = tb_queue(s, "b", org, 8, -1, 1);
	s->now = 1000000;
	s->config.budget_safe = true;
	s->queues[org].gpu_hour_budget = 100;
	s->queues[a].usage = 88 * H;
	for (int q = 0; q < s->nqueues; q++)
		s->queues[q].usage_at = s->now;
	int ja = tb_job(s, "ja", a, 1, 8, 1000, 10);
	int jb = tb_job(s, "jb", b, 1, 8, 1000, 20);
	s->jobs[ja].expected_runtime = s->jobs[jb].expected_runtime = 3600;
	for (size_t i = 0; i < sizeof POLICIES / sizeof POLICIES[0]; i++) {
		struct fw_plan *p = tb_plan(s, POLICIES[i], &A);
		ASSERT(p != NULL);
		int started = (tb_find(p, ja, FW_DECIDE_START) != NULL) + (tb_find(p, jb, FW_DECIDE_START) != NULL);
		ASSERT_EQ(started, 1);
		const struct fw_pending *r = fw_plan_pending_for(p, tb_find(p, ja, FW_DECIDE_START) ? jb : ja);
		ASSERT(r != NULL);
		ASSERT_EQ(r->reason, FW_REASON_BUDGET_SHORT);
		ASSERT_EQ(r->a, 8);
		ASSERT_EQ(r->b, 4);
		ASSERT(tb_replans_same(s, POLICIES[i], p, &A));
	}
	s->queues[org].gpu_hour_budget = 104; /* 16 left: both */
	struct fw_plan *p = tb_plan(s, "fairway", &A);
	ASSERT(p != NULL);
	ASSERT(tb_find(p, ja, FW_DECIDE_START) != NULL);
	ASSERT(tb_find(p, jb, FW_DECIDE_START) != NULL);
	fw_snapshot_free(s);
}

/* Without a bound a run cannot be shown to fit: a job with no runtime
 * and no limit waits (a = -1), and while a running job under the budget
 * has none, what is left is unknown (b = -1) and no GPU job starts; a
 * job without GPUs uses no GPU-hours and starts.  The texts say what to
 * do. */
TEST(safe_unbounded_runs_do_not_fit)
{
	char buf[FW_REASON_TEXT_MAX];
	struct world x = safe_world(100, 0, 0);
	struct fw_plan *p = tb_plan(x.s, "fairway", &A);
	ASSERT(p != NULL);
	const struct fw_pending *r = fw_plan_pending_for(p, x.w);
	ASSERT(r != NULL);
	ASSERT_EQ(r->reason, FW_REASON_BUDGET_SHORT);
	ASSERT_EQ(r->a, -1);
	ASSERT_STR_CONTAINS(fw_reason_format(r->reason, r->a, r->b, buf, sizeof buf),
			    "give it a run-time limit (maxRuntime) or a runtime");
	x.s->jobs[x.w].max_runtime_s = 3600; /* bounded: starts */
	p = tb_plan(x.s, "fairway", &A);
	ASSERT(p != NULL);
	ASSERT(tb_find(p, x.w, FW_DECIDE_START) != NULL);
	int n0 = 0;
	int r0 = tb_job(x.s, "r0", x.q, 1, 4, 1000, 10); /* running, unbounded */
	tb_run(x.s, r0, 1, &n0, 0x0f);
	x.s->jobs[r0].start_time = x.s->now - 60;
	int cpu = tb_job(x.s, "cpu", x.q, 1, 0, 1000, 20);
	p = tb_plan(x.s, "fairway", &A);
	ASSERT(p != NULL);
	r = fw_plan_pending_for(p, x.w);
	ASSERT(r != NULL);
	ASSERT_EQ(r->reason, FW_REASON_BUDGET_SHORT);
	ASSERT_EQ(r->a, 8);
	ASSERT_EQ(r->b, -1);
	ASSERT_STR_CONTAINS(fw_reason_format(r->reason, r->a, r->b, buf, sizeof buf),
			    "a job running under it has no run-time limit or runtime");
	ASSERT(tb_find(p, cpu, FW_DECIDE_START) != NULL);
	ASSERT_STR_CONTAINS(fw_reason_format(FW_REASON_BUDGET_SHORT, 16, 10, buf, sizeof buf),
			    "its whole run may use 16 GPU-hours and its queue (or a parent queue) has 10 left");
	fw_snapshot_free(x.s);
}

/* A job that would not fit takes nothing back: w (8 GPU-h) with 5 left
 * reclaims nothing from queue P's r0 and r1, though Q deserves all 16
 * GPUs; with 20 left it takes one's. */
TEST(safe_a_short_job_evicts_nothing)
{
	struct world x = safe_world(85, 80, 3600);
	int n[2] = { 0, 1 }, r0 = -1;
	int P = tb_queue(x.s, "P", -1, 0, -1, 1);
	for (int k = 0; k < 2; k++) {
		int j = tb_job(x.s, k ? "r1" : "r0", P, 1, 8, 1000, x.s->now - 4000 + k);
		tb_run(x.s, j, 1, &n[k], 0xff);
		x.s->jobs[j].start_time = x.s->now - 3600;
		x.s->jobs[j].preemptible = true;
		r0 = k ? r0 : j;
	}
	struct fw_plan *p = tb_plan(x.s, "fairway", &A);
	ASSERT(p != NULL);
	ASSERT_EQ(p->ndecisions, 0);
	ASSERT_EQ(fw_plan_pending_for(p, x.w)->reason, FW_REASON_BUDGET_SHORT);
	ASSERT_EQ(fw_plan_pending_for(p, x.w)->b, 5);
	x.s->queues[x.q].gpu_hour_budget = 100;
	p = tb_plan(x.s, "fairway", &A);
	ASSERT(p != NULL);
	ASSERT(tb_find(p, r0, FW_DECIDE_EVICT) != NULL || tb_find(p, r0 + 1, FW_DECIDE_EVICT) != NULL);
	ASSERT(tb_find(p, x.w, FW_DECIDE_START) != NULL);
	fw_snapshot_free(x.s);
}

/* The checker recounts it: a plan made without budgetSafe fails once it
 * is on, naming the job, its run and what was left. */
TEST(safe_the_checker_refuses_a_run_past_the_budget)
{
	struct fw_diag d;
	struct world x = world(100, 90);
	x.s->jobs[x.w].expected_runtime = 7200;
	struct fw_plan *p = tb_plan(x.s, "fairway", &A);
	ASSERT(p != NULL);
	ASSERT(tb_find(p, x.w, FW_DECIDE_START) != NULL);
	x.s->config.budget_safe = true;
	ASSERT_EQ(fw_plan_check(x.s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "job w starts with a run of 16.0 GPU-hours though queue Q has 10.0 GPU-hours of "
				   "its budget left (budgetSafe)");
	x.s->queues[x.q].gpu_hour_budget = 106;
	ASSERT_EQ(fw_plan_check(x.s, p, &A, &d), FW_OK);
	fw_snapshot_free(x.s);
}

/* A budget-short job is expected when its run fits what is left: with
 * nothing running, when the decay of the 90 used leaves 16; a replan a
 * second before still holds it, one at that second starts it.  A running
 * job that ends before its limit gives back what its limit held: w fits
 * the second r0 is expected to end; one that runs to its limit gives
 * nothing back, and w waits for the usage to decay.  A run longer than
 * the budget never fits: unknown. */
TEST(safe_a_short_job_is_expected_when_its_run_fits)
{
	for (size_t i = 0; i < sizeof POLICIES / sizeof POLICIES[0]; i++) {
		struct world x = safe_world(100, 90, 7200);
		struct fw_plan *p = tb_plan(x.s, POLICIES[i], &A);
		ASSERT(p != NULL);
		fw_time t = fw_plan_pending_for(p, x.w)->expected_start, now = x.s->now;
		ASSERT(t > now);
		x.s->now = t - 1;
		p = tb_plan(x.s, POLICIES[i], &A);
		ASSERT(p != NULL);
		ASSERT_EQ(fw_plan_pending_for(p, x.w)->reason, FW_REASON_BUDGET_SHORT);
		ASSERT_EQ(fw_plan_pending_for(p, x.w)->expected_start, t);
		x.s->now = t;
		p = tb_plan(x.s, POLICIES[i], &A);
		ASSERT(p != NULL);
		ASSERT(tb_find(p, x.w, FW_DECIDE_START) != NULL);
		fw_snapshot_free(x.s);
	}
	struct world x = safe_world(100, 80, 3600);
	int n0 = 0;
	fw_time t;
	int r0 = tb_job(x.s, "r0", x.q, 1, 8, 1000, 10);
	tb_run(x.s, r0, 1, &n0, 0xff);
	x.s->jobs[r0].start_time = x.s->now - 3600;
	x.s->jobs[r0].max_runtime_s = 10 * 3600;   /* 72 GPU-h still allowed */
	x.s->jobs[r0].expected_runtime = 2 * 3600; /* but it ends in an hour */
	struct fw_plan *p = tb_plan(x.s, "fairway", &A);
	ASSERT(p != NULL);
	const struct fw_pending *r = fw_plan_pending_for(p, x.w);
	ASSERT_EQ(r->reason, FW_REASON_BUDGET_SHORT);
	ASSERT_EQ(r->b, 0);
	ASSERT_EQ(r->expected_start, x.s->now + 3600);
	/* r0 runs to its limit, 9 h on: its usage, 80 GPU-h fed by 8 GPUs,
	 * must then decay to the 92 that leave w's 8 */
	x.s->jobs[r0].expected_runtime = 0;
	p = tb_plan(x.s, "fairway", &A);
	ASSERT(p != NULL);
	double h = x.s->config.usage_half_life_s, sd = 8 * h / log(2.0);
	double u9 = sd + (80 * H - sd) * exp2(-9 * 3600 / h), at = (double)x.s->now + 9 * 3600 + h * log2(u9 / (92 * H));
	t = fw_plan_pending_for(p, x.w)->expected_start;
	ASSERT(t >= (fw_time)at && t <= (fw_time)at + 1);
	/* never: 100 GPU-h, the whole budget, and 160 */
	for (fw_time rt = 12 * 3600 + 1800, a = 100; rt; rt = rt < 20 * 3600 ? 20 * 3600 : 0, a = 160) {
		x.s->jobs[x.w].expected_runtime = rt;
		ASSERT((r = plan_pending(x.s, x.w)) != NULL);
		ASSERT_EQ(r->expected_start, FW_TIME_UNKNOWN);
		ASSERT_EQ(r->unknown_why, FW_REASON_BUDGET_SHORT);
		ASSERT_EQ(r->why_a, a);
	}
	fw_snapshot_free(x.s);
}

/* A running job the plan drains off an unhealthy node (requeued) and
 * does not restart runs no more GPUs: what is left grows from the
 * usage's decay alone, so w's estimate is no sooner than when the usage
 * alone leaves room for its run, the checker's floor.  (Found by
 * tests/fuzz/fuzz_cycle.c: the drained job's GPUs stayed in the queue's
 * allocation after the plan, and the estimate ran them on for ever,
 * adding to what is left.)  Here r, 2 h of 8 GPUs started 100 s ago,
 * may not restart: its whole run again (16 GPU-h) would overdraw the
 * budget (budget_short).  w is expected later than with r healthy: the
 * cycle still counts the rest of r's run against the budget, as the
 * checker does (fw_budget_left: an eviction counts as running on).
 * With a 200 s run r restarts elsewhere in the same plan (what the
 * restart adds, 100 s more of 8 GPUs, fits), and w is expected no
 * sooner than with r running on. */
TEST(safe_a_drained_job_runs_no_gpus_in_the_estimate)
{
	for (int v = 0; v < 2; v++) {
		struct world x = safe_world(100, 90, 7200); /* w: 16 GPU-h of 10 left */
		int n1 = 1;
		int r = tb_job(x.s, "r", x.q, 1, 8, 1000, 10);
		tb_run(x.s, r, 1, &n1, 0xff);
		x.s->jobs[r].start_time = x.s->now - 100;
		x.s->jobs[r].expected_runtime = v == 0 ? 7200 : 200;
		x.s->config.drain_requeue = true;
		struct fw_plan *p = tb_plan(x.s, "fairway", &A);
		ASSERT(p != NULL);
		fw_time running = fw_plan_pending_for(p, x.w)->expected_start;
		x.s->nodes[n1].health = FW_HEALTH_UNHEALTHY;
		p = tb_plan(x.s, "fairway", &A); /* the checker passes */
		ASSERT(p != NULL);
		const struct fw_decision *e = tb_find(p, r, FW_DECIDE_EVICT), *st = tb_find(p, r, FW_DECIDE_START);
		ASSERT(e != NULL);
		fw_time t = fw_plan_pending_for(p, x.w)->expected_start;
		if (v == 0) {
			ASSERT(st == NULL);
			ASSERT_EQ(p->queues[x.q].allocated.v[FW_RES_GPU], 0); /* after the plan */
			double h = x.s->config.usage_half_life_s;
			ASSERT(t >= x.s->now + (fw_time)(h * log2(90.0 / (100 - 16))));
			ASSERT(t > running);
		} else {
			ASSERT(st != NULL && e < st);
			ASSERT(p->allocs[st->alloc_first].node != n1);
			ASSERT_EQ(p->queues[x.q].allocated.v[FW_RES_GPU], 8000);
			ASSERT(t >= running);
		}
		fw_snapshot_free(x.s);
	}
}

/* A short gang is expected when its budget lets it go, not when it would
 * starve (fairway tries starving gangs first; a gang held by nothing but
 * its budget starts where the walk found room once the budget allows,
 * measured in docs/sim.md): w as 2 tasks of 8 GPUs for 1 h, 16 GPU-h of
 * the 10 left, starving only after 30 days. */
TEST(safe_a_short_gang_is_not_held_to_its_starving_time)
{
	struct world x = safe_world(100, 90, 3600);
	x.s->jobs[x.w].groups[0].count = 2;
	x.s->config.starve_after_s = 30 * 86400;
	struct fw_plan *p = tb_plan(x.s, "fairway", &A);
	ASSERT(p != NULL);
	const struct fw_pending *r = fw_plan_pending_for(p, x.w);
	ASSERT_EQ(r->reason, FW_REASON_BUDGET_SHORT);
	double h = x.s->config.usage_half_life_s, at = (double)x.s->now + h * log2(90.0 / 84.0);
	ASSERT(r->expected_start >= (fw_time)at && r->expected_start <= (fw_time)at + 1);
	fw_snapshot_free(x.s);
}

/* The checker holds a short job's estimate to the soonest the usage
 * alone could leave room for its run. */
TEST(safe_the_checker_refuses_a_short_job_expected_too_soon)
{
	struct fw_diag d;
	struct world x = safe_world(100, 90, 7200);
	x.s->config.usage_half_life_s = WEEK;
	ASSERT_EQ(check_moved_estimate(&x, x.s->now + 600, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "job w is expected at t=1000600, but its run of 16.0 GPU-hours fits queue Q's "
				   "budget of 100 no sooner than t=");
	x.s->config.utc_times = true; /* a Unix clock's texts: UTC dates */
	ASSERT_EQ(check_moved_estimate(&x, x.s->now + 600, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "job w is expected at 1970-01-12T13:56:40Z, but its run of 16.0 GPU-hours fits "
				   "queue Q's budget of 100 no sooner than 1970-01-");
	ASSERT(strstr(d.msg, "t=") == NULL);
	fw_snapshot_free(x.s);
}

/* Random fleets in safe mode: every plan passes the checker (which
 * recounts each start against what is left), is the same again, and
 * both starts and budget_short holds happen. */
TEST(safe_random_fleets_keep_every_run_inside_its_budget)
{
	uint32_t seed = 4242;
	int short_ = 0, started = 0;
	for (int round = 0; round < 60; round++) {
		struct fw_snapshot *s = random_fleet(&seed, true);
		const char *pol = POLICIES[round % 4];
		struct fw_plan *p = tb_plan(s, pol, &A); /* checked: no run past what is left */
		ASSERT(p != NULL);
		for (int i = 0; i < p->npending; i++)
			short_ += p->pending[i].reason == FW_REASON_BUDGET_SHORT;
		for (int i = 0; i < p->ndecisions; i++)
			started += p->decisions[i].kind == FW_DECIDE_START;
		ASSERT(tb_replans_same(s, pol, p, &A));
		fw_snapshot_free(s);
	}
	ASSERT(short_ >= 20);
	ASSERT(started >= 40);
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
	a_queue_at_its_budget_starts_nothing, the_budget_counts_usage_decayed_to_now, \
	a_parents_budget_holds_its_subtree, running_jobs_run_on_and_nothing_is_evicted_for_a_held_job, \
	a_held_job_is_expected_when_the_usage_falls_below_the_budget, the_checker_refuses_a_held_job_expected_too_soon, \
	the_checker_refuses_a_start_over_a_budget, a_bad_budget_is_refused, random_fleets_start_nothing_over_a_budget, \
	reasons_behind_a_strict_head_do_not_depend_on_estimates, \
	safe_a_job_starts_only_if_its_whole_run_fits, safe_running_jobs_count_what_they_may_still_use, \
	safe_starts_in_one_cycle_share_what_is_left, safe_unbounded_runs_do_not_fit, safe_a_short_job_evicts_nothing, \
	safe_the_checker_refuses_a_run_past_the_budget, safe_random_fleets_keep_every_run_inside_its_budget, \
	safe_a_short_job_is_expected_when_its_run_fits, safe_a_drained_job_runs_no_gpus_in_the_estimate, safe_the_checker_refuses_a_short_job_expected_too_soon, \
	safe_a_short_gang_is_not_held_to_its_starving_time

int main(void)
{
	fw_test_fn fns[] = { TESTS };
	int rc;
	setup();
	rc = fw_test_main(FW_TEST__STR(TESTS), fns, (int)(sizeof fns / sizeof fns[0]));
	teardown();
	return rc;
}
