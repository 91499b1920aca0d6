/*
 * test_metrics.c — sim/metrics.c, sim/report.c and sim/progress.c.
 *
 * The integrals are checked on hand-built outcomes whose answers are
 * worked out in the comments (idle-while-waiting, occupancy, fairness);
 * the command line is checked end to end on a tiny synthetic trace
 * (JSON fields, CSV rows, a report with charts, byte-identical reruns).
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "fairway/plan.h"
#include "fairway/snapshot.h"
#include "harness.h"
#include "metrics.h"
#include "progress.h"
#include "report.h"
#include "trace.h"

/* ---- progress bar ---------------------------------------------------------- */

TEST(progress_line_has_bar_percent_and_thousands)
{
	char b[256], c[32];

	fw_progress_commas(c, sizeof c, 13046);
	ASSERT_STR_EQ(c, "13,046");
	fw_progress_commas(c, sizeof c, 999);
	ASSERT_STR_EQ(c, "999");
	fw_progress_commas(c, sizeof c, 1234567);
	ASSERT_STR_EQ(c, "1,234,567");
	fw_progress_format(b, sizeof b, "fifo", NULL, 9130, 13046);
	ASSERT_STR_CONTAINS(b, "[fairway] fifo");
	ASSERT_STR_CONTAINS(b, " 69%  9,130/13,046 jobs started");
	ASSERT_STR_CONTAINS(b, "\xe2\x96\x88\xe2\x96\x91"); /* full then light cells */
	fw_progress_format(b, sizeof b, "kai", NULL, 5, 0); /* no division by zero */
	ASSERT_STR_CONTAINS(b, "100%");
	fw_progress_format(b, sizeof b, "health", "replay pairs", 3, 40);
	ASSERT_STR_CONTAINS(b, "  7%  3/40 replay pairs");
}

TEST(progress_draws_only_when_on_and_erases_its_line)
{
	struct fw_progress p;
	char buf[1024] = { 0 };
	FILE *f = tmpfile();

	ASSERT(f);
	fw_progress_init(&p, f, false, "fifo", 10);
	fw_progress_update(&p, 5);
	fw_progress_finish(&p);
	ASSERT_EQ(ftell(f), 0);
	fw_progress_init(&p, f, true, "fifo", 10);
	fw_progress_update(&p, 5);
	fw_progress_update(&p, 6); /* within 0.1 s: skipped */
	fw_progress_update(&p, 10); /* the end is always drawn */
	fw_progress_finish(&p);
	rewind(f);
	ASSERT(fread(buf, 1, sizeof buf - 1, f) > 0);
	ASSERT_STR_CONTAINS(buf, "\r[fairway] fifo");
	ASSERT_STR_CONTAINS(buf, "5/10 jobs started");
	ASSERT(!strstr(buf, "6/10"));
	ASSERT_STR_CONTAINS(buf, "10/10 jobs started\033[K\r\033[K");
	fclose(f);
}

/* ---- the integrals ---------------------------------------------------------- */

/*
 * 8 GPUs.  A (queue 0): submit 0, start 0, 100 s, 6 GPUs.  B (queue 1):
 * submit 10, start 100, 50 s, 4 GPUs — waits 10..100 with 2 GPUs free, so
 * 180 GPU-s idle while waiting.  C (queue 1): 16 GPUs, never starts; it
 * can never fit (unfit), so it does not count as waiting.  Window 0..150:
 * capacity 1200 GPU-s, used 600 + 200 = 800 GPU-s.
 */
static const struct fw_met_job jobs3[] = {
	{ 0, 100, 0, 6, 0, 0, false, 0, NULL, 0, 0, false, 0, 0, false },
	{ 10, 50, 100, 4, 1, 0, false, 0, NULL, 0, 0, false, 0, 0, false },
	{ 0, 30, -1, 16, 1, 0, false, 0, NULL, 0, 0, false, 0, 0, true },
};

TEST(idle_while_waiting_and_occupancy_are_exact)
{
	struct fw_met_policy p;

	memset(&p, 0, sizeof p);
	ASSERT_OK(fw_met_compute(jobs3, 3, NULL, 8, &p));
	ASSERT_EQ(p.t0, 0);
	ASSERT_EQ(p.t1, 150);
	ASSERT_NEAR(p.capacity_gpu_h * 3600, 1200, 1e-6);
	ASSERT_NEAR(p.used_gpu_h * 3600, 800, 1e-6);
	ASSERT_NEAR(p.goodput_gpu_h, p.used_gpu_h, 1e-12);
	ASSERT_NEAR(p.idle_while_waiting_gpu_h * 3600, 180, 1e-6);
	ASSERT_EQ(p.nq, 2);
	ASSERT_NEAR(p.q[0].idle_while_waiting_gpu_h, 0, 1e-12);
	ASSERT_NEAR(p.q[1].idle_while_waiting_gpu_h * 3600, 180, 1e-6);
	ASSERT_NEAR(p.q[0].occupancy, 600.0 / 1200.0, 1e-9);
	ASSERT_EQ(p.nbins, FW_MET_BINS);
	ASSERT_NEAR(p.occupancy_series[0], 0.75, 1e-6);
	ASSERT_NEAR(p.occupancy_series[FW_MET_BINS - 1], 0.5, 1e-6);
	double sum = 0;
	for (int i = 0; i < p.nbins; i++)
		sum += p.occupancy_series[i];
	ASSERT_NEAR(sum / p.nbins, 800.0 / 1200.0, 1e-5);
	ASSERT_EQ(p.ntts[FW_SIM_B2_8], 2);
	ASSERT_EQ(p.tts[FW_SIM_B2_8][1], 90);
	ASSERT_EQ(p.ntts[FW_SIM_B9], 0);
	ASSERT(p.fairness_jain < 0); /* no plans recorded */
	fw_met_policy_release(&p);
}

/*
 * Evictions: capacity 8.  X (queue 0, 8 GPUs, 100 s of work) runs [0, 40),
 * is evicted (kept nothing), waits [40, 60) and reruns [60, 160).  Y
 * (queue 1, 4 GPUs) arrives at 50 and runs [160, 180).  Window 0..180;
 * used 8 x 40 + 8 x 100 + 4 x 20 = 1200 GPU-s (every run counts); idle
 * while waiting: [40, 60) with 8 free = 160 GPU-s (queue 0: 160; queue 1:
 * [50, 60) = 80).  Evictions per job: mean 0.5, max 1.
 */
static const struct fw_sim_span x_runs[] = { { 0, 0, 40, 0, 0 }, { 0, 60, 160, 0, 0 } };

TEST(evictions_count_every_run_and_the_wait_between)
{
	const struct fw_met_job j[] = {
		{ 0, 100, 0, 8, 0, 1, false, 0, x_runs, 2, 0, false, 0, 0, false },
		{ 50, 20, 160, 4, 1, 0, false, 0, NULL, 0, 0, false, 0, 0, false },
	};
	struct fw_met_policy p;

	memset(&p, 0, sizeof p);
	ASSERT_OK(fw_met_compute(j, 2, NULL, 8, &p));
	ASSERT_EQ(p.t1, 180);
	ASSERT_NEAR(p.used_gpu_h * 3600, 1200, 1e-6);
	ASSERT_NEAR(p.idle_while_waiting_gpu_h * 3600, 160, 1e-6);
	ASSERT_NEAR(p.q[0].idle_while_waiting_gpu_h * 3600, 160, 1e-6);
	ASSERT_NEAR(p.q[1].idle_while_waiting_gpu_h * 3600, 80, 1e-6);
	ASSERT_NEAR(p.evictions_per_job_mean, 0.5, 1e-12);
	ASSERT_EQ(p.evictions_per_job_max, 1);
	ASSERT_EQ(p.est.n, 0);
	ASSERT_EQ(p.est.err_p50_s, -1);
	fw_met_policy_release(&p);
}

/*
 * Estimate accuracy.  err = |estimate - start| over started jobs with a
 * known estimate: A 600, B 1800, C 900, D 36000, E 50, H 0 (F has no
 * estimate, G never started) -> sorted 0 50 600 900 1800 36000, median
 * (3rd) 600.  Big = 9+ GPUs that waited >= 1 h: B (wait 7200), C (9 GPUs,
 * wait 3600), D (wait 36000); E and H waited under an hour.  Errors 900
 * 1800 36000 -> 1800; err / wait .25 .25 1.0 -> .25.
 */
TEST(estimate_accuracy_is_the_median_absolute_error)
{
	const struct fw_met_job j[] = {
		{ 0, 10, 600, 1, 0, 0, true, 0, NULL, 0, 0, false, 0, 0, false },          /* A */
		{ 0, 10, 7200, 16, 0, 0, true, 5400, NULL, 0, 0, false, 0, 0, false },     /* B */
		{ 100, 10, 3700, 9, 0, 0, true, 4600, NULL, 0, 0, false, 0, 0, false },    /* C */
		{ 0, 10, 36000, 32, 0, 0, true, 0, NULL, 0, 0, false, 0, 0, false },       /* D */
		{ 0, 10, 100, 64, 0, 0, true, 50, NULL, 0, 0, false, 0, 0, false },        /* E */
		{ 0, 10, 5000, 8, 0, 0, false, 0, NULL, 0, 0, false, 0, 0, false },        /* F */
		{ 0, 10, -1, 16, 0, 0, true, 10, NULL, 0, 0, false, 0, 0, false },         /* G */
		{ 0, 10, 3599, 16, 0, 0, true, 3599, NULL, 0, 0, false, 0, 0, false },     /* H */
	};
	struct fw_met_est e;

	ASSERT_OK(fw_met_estimates(j, 8, &e));
	ASSERT_EQ(e.n, 6);
	ASSERT_EQ(e.err_p50_s, 600);
	ASSERT_EQ(e.big_n, 3);
	ASSERT_EQ(e.big_err_p50_s, 1800);
	ASSERT_NEAR(e.big_ratio_p50, 0.25, 1e-12);
	ASSERT_OK(fw_met_estimates(j, 1, &e)); /* A alone: no big job */
	ASSERT_EQ(e.n, 1);
	ASSERT_EQ(e.err_p50_s, 600);
	ASSERT_EQ(e.big_n, 0);
	ASSERT_EQ(e.big_err_p50_s, -1);
	ASSERT(e.big_ratio_p50 < 0);
}

/* The comparison table has the preemption and estimate rows; "n/a" where a
 * policy has no multi-node job that waited an hour. */
TEST(compare_table_prints_the_eviction_and_estimate_rows)
{
	struct fw_met_policy a, b;
	struct fw_met_run *mr = calloc(1, sizeof *mr);
	char *out = NULL;
	size_t len = 0;

	ASSERT(mr);
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	snprintf(a.name, sizeof a.name, "one");
	snprintf(b.name, sizeof b.name, "two");
	a.lost_gpu_h = 2.5;
	a.evictions_per_job_max = 3;
	a.est = (struct fw_met_est){ 4, 7200, 2, 3600, 0.2 };
	b.est = (struct fw_met_est){ 0, -1, 0, -1, -1 };
	mr->pol[0] = &a;
	mr->pol[1] = &b;
	mr->npol = 2;
	FILE *f = open_memstream(&out, &len);
	ASSERT(f);
	fw_met_print_compare(mr, f);
	fclose(f);
	ASSERT_STR_CONTAINS(out, "p95, 33+ GPUs");
	ASSERT_STR_CONTAINS(out, "GPU-h lost to evictions");
	ASSERT_STR_CONTAINS(out, "evictions per job, mean");
	ASSERT_STR_CONTAINS(out, "evictions per job, max");
	ASSERT_STR_CONTAINS(out, "start estimate |err| p50");
	ASSERT_STR_CONTAINS(out, "9+ GPUs waited 1h+, |err| p50");
	ASSERT_STR_CONTAINS(out, "20.0*");   /* 20 % of the wait */
	ASSERT_STR_CONTAINS(out, "n/a");
	ASSERT_STR_CONTAINS(out, "2.500 ");
	free(out);
	free(mr);
}

/* The comparison of two policies' p95 time to start: 27.7 h and 20 s. */
static char *compare_p95(int32_t node_gpus_max)
{
	struct fw_met_policy a, b;
	struct fw_met_run *mr = calloc(1, sizeof *mr);
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	ASSERT(mr);
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	snprintf(a.name, sizeof a.name, "fifo");
	snprintf(b.name, sizeof b.name, "fairway");
	a.base.bucket[FW_SIM_BALL].tts_p95 = 99720;
	b.base.bucket[FW_SIM_BALL].tts_p95 = 20;
	a.est = b.est = (struct fw_met_est){ 0, -1, 0, -1, -1 };
	mr->pol[0] = &a;
	mr->pol[1] = &b;
	mr->npol = 2;
	mr->node_gpus_max = node_gpus_max;
	ASSERT(f = open_memstream(&out, &len));
	fw_met_print_compare(mr, f);
	fclose(f);
	free(mr);
	return out;
}

/* A row reads in one unit, and a value above 0 that the unit rounds to
 * 0 reads "<1 min", not "0 min" (which says none); the 9+ GPU row says
 * "multi-node" only when no node holds 9 GPUs. */
TEST(compare_rows_never_show_a_wait_as_zero_and_multi_node_follows_the_nodes)
{
	char *out = compare_p95(8), *row;

	ASSERT(row = strstr(out, "time to start p95"));
	ASSERT_STR_CONTAINS(row, "1662 min       <1 min*\n");
	ASSERT(!strstr(out, " 0 min"));
	ASSERT_STR_CONTAINS(out, "\n  p95, 9+ GPUs (multi-node)   ");
	/* its label 30 wide as every row's, so its values line up under theirs:
	 * its line as long as the row above's */
	char *b9 = strstr(out, "\n  p95, 9+ GPUs (multi-node)") + 1;
	ASSERT_EQ(strcspn(b9, "\n"), strcspn(row, "\n"));
	free(out);
	out = compare_p95(16);
	ASSERT_STR_CONTAINS(out, "\n  p95, 9+ GPUs                ");
	ASSERT(!strstr(out, "multi-node"));
	free(out);
}

TEST(percentiles_are_nearest_rank)
{
	int64_t v[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };

	ASSERT_EQ(fw_met_pct(v, 10, 50), 5);
	ASSERT_EQ(fw_met_pct(v, 10, 95), 10);
	ASSERT_EQ(fw_met_pct(v, 10, 0), 1);
	ASSERT_EQ(fw_met_pct(v, 0, 50), -1);
}

/* The rank is ceil(p * n / 100) in whole numbers: in floating point
 * 7 / 100.0 * 100 is 7.000000000000001 and ceil took the 8th value; the
 * same for p = 28, n = 25 and p = 55, n = 100 (among others). */
TEST(percentile_rank_is_exact_for_every_p_and_n)
{
	int64_t v[200];

	for (int i = 0; i < 200; i++)
		v[i] = i + 1; /* v[k - 1] = k: the value is the rank */
	ASSERT_EQ(fw_met_pct(v, 100, 7), 7);
	ASSERT_EQ(fw_met_pct(v, 25, 28), 7);
	ASSERT_EQ(fw_met_pct(v, 100, 55), 55);
	ASSERT_EQ(fw_met_pct(v, 50, 14), 7);
	for (int n = 1; n <= 200; n++)
		for (int p = 0; p <= 100; p++) {
			int64_t k = ((int64_t)p * n + 99) / 100;
			ASSERT_EQ(fw_met_pct(v, (size_t)n, p), k ? k : 1);
		}
}

static void plan_at(struct fw_met_rec *r, const struct fw_snapshot *s, fw_time t,
		    double f0, double a0, double f1, double a1)
{
	struct fw_queue_result q[2];
	struct fw_plan p;

	memset(q, 0, sizeof q);
	memset(&p, 0, sizeof p);
	q[0].fair[FW_RES_GPU] = f0 * 1000;
	q[0].allocated.v[FW_RES_GPU] = (int64_t)(a0 * 1000);
	q[1].fair[FW_RES_GPU] = f1 * 1000;
	q[1].allocated.v[FW_RES_GPU] = (int64_t)(a1 * 1000);
	p.now = t;
	p.queues = q;
	p.nqueues = 2;
	fw_met_on_plan(r, s, &p, 0);
}

/* A snapshot with queues team-0 and team-1 of `deserved` milli-GPUs each. */
static struct fw_snapshot *two_teams(int64_t deserved)
{
	struct fw_snapshot *s = fw_snapshot_new();
	struct fw_queue q;

	for (int i = 0; s && i < 2; i++) {
		fw_queue_init(&q);
		snprintf(q.name, sizeof q.name, "team-%d", i);
		q.deserved.v[FW_RES_GPU] = deserved;
		if (fw_snapshot_add_queue(s, &q) < 0) {
			fw_snapshot_free(s);
			return NULL;
		}
	}
	return s;
}

/* An empty plan record and policy result for the fairness tests. */
static void fresh(struct fw_met_rec *rec, struct fw_met_policy *p)
{
	memset(rec, 0, sizeof *rec);
	memset(p, 0, sizeof *p);
}

/*
 * Two queues, window 0..150.  Plan at 0: fair (2, 2), allocated (2, 2):
 * x = (1, 1), Jain 1, held 50 s.  Plan at 50: fair (2, 2), allocated
 * (4, 0): x = (2, 0), Jain 4 / (2 * 4) = 0.5, held 100 s.  Time-averaged
 * Jain (50 + 50) / 150 = 2/3; mean ratios 250/150 and 50/150, both 2/3
 * from 1, so the first queue is the worst.
 */
TEST(fairness_is_jain_of_allocated_over_fair_averaged_over_time)
{
	struct fw_snapshot *s = two_teams(4000);
	struct fw_met_rec rec;
	struct fw_met_policy p;

	ASSERT(s);
	fresh(&rec, &p);
	plan_at(&rec, s, 0, 2, 2, 2, 2);
	plan_at(&rec, s, 50, 2, 4, 2, 0);
	ASSERT_EQ(rec.n, 2);
	ASSERT_OK(fw_met_compute(jobs3, 3, &rec, 8, &p));
	ASSERT_NEAR(p.fairness_jain, 2.0 / 3.0, 1e-9);
	ASSERT_NEAR(p.q[0].share_ratio_mean, 250.0 / 150.0, 1e-9);
	ASSERT_NEAR(p.q[1].share_ratio_mean, 50.0 / 150.0, 1e-9);
	ASSERT_NEAR(p.fairness_max_dev, 2.0 / 3.0, 1e-9);
	ASSERT_EQ(p.fairness_max_dev_queue, 0);
	ASSERT_STR_EQ(p.q[1].name, "team-1");
	ASSERT_NEAR(p.q[1].deserved_gpus, 4, 1e-12);
	ASSERT_NEAR(p.q[0].fair_gpus_mean, 2, 1e-9);
	ASSERT_NEAR(p.q[0].alloc_gpus_mean, (2 * 50 + 4 * 100) / 150.0, 1e-9);
	ASSERT_NEAR(p.q[0].alloc_series[FW_MET_BINS - 1], 4, 1e-5);
	fw_met_policy_release(&p);
	fw_met_rec_release(&rec);
	fw_snapshot_free(s);
}

/* --shares writes every plan sample: a plan holds until the next one, the
 * last until the replay's end (the metrics' window end); a plan is cut
 * there, and one made at or after it has no rows. */
TEST(shares_csv_has_a_row_per_plan_and_queue)
{
	struct fw_snapshot *s = two_teams(4000);
	struct fw_met_rec rec;
	struct fw_met_policy p;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	ASSERT(s);
	fresh(&rec, &p);
	plan_at(&rec, s, 0, 2, 2, 2, 2);
	plan_at(&rec, s, 50, 2, 4, 2, 0.5);
	ASSERT((f = open_memstream(&buf, &len)) != NULL);
	ASSERT_OK(fw_met_write_shares(f, &rec, "fair,way", 150));
	ASSERT_OK(fw_met_write_shares(f, &rec, "x", 10)); /* an end before the last plan */
	ASSERT_OK(fw_met_write_shares(f, &rec, "y", 50)); /* an end at the last plan */
	ASSERT_EQ(fclose(f), 0);
	ASSERT_STR_EQ(buf, "\"fair,way\",0,50,team-0,4,2,2\n"
			   "\"fair,way\",0,50,team-1,4,2,2\n"
			   "\"fair,way\",50,150,team-0,4,2,4\n"
			   "\"fair,way\",50,150,team-1,4,2,0.5\n"
			   "x,0,10,team-0,4,2,2\n"
			   "x,0,10,team-1,4,2,2\n"
			   "y,0,50,team-0,4,2,2\n"
			   "y,0,50,team-1,4,2,2\n");
	ASSERT_STR_EQ(fw_met_shares_header, "policy,t,until,queue,deserved_gpus,fair_gpus,alloc_gpus\n");
	free(buf);
	fw_met_rec_release(&rec);
	fw_snapshot_free(s);
}

/*
 * A plan that holds for 5,000 whole hours (more than JWIN_BULK windows
 * alike) is added in one step, and the windows on either side of it are
 * cut as before.  Fair (2, 2) throughout.  0..1800 s allocated (4, 0),
 * then (2, 2) until 5001 h 15 min, then (4, 0) to the end at 5002 h.
 * Window 0: x = (1.5, 0.5), Jain 4 / (2 * 2.5) = 0.8; windows 1..5000:
 * Jain 1; window 5001 (900 s of (2, 2), 2700 s of (4, 0)): x = (1.75,
 * 0.25), Jain 4 / (2 * 3.125) = 0.64.  So the 1-hour figure is
 * (0.8 + 5000 + 0.64) / 5002.  (Before, a plan of centuries, which times
 * up to 10^12 s allow, cost minutes a policy, one step per hour.)
 */
TEST(fairness_windows_of_a_long_plan_are_added_at_once)
{
	const int64_t H = 3600, t2 = 5001 * H + 900, end = 5002 * H;
	const struct fw_met_job two[] = {
		{ 0, end, 0, 4, 0, 0, false, 0, NULL, 0, 0, false, 0, 0, false },
		{ 0, end, 0, 4, 1, 0, false, 0, NULL, 0, 0, false, 0, 0, false },
	};
	struct fw_snapshot *s = two_teams(2000);
	struct fw_met_rec rec;
	struct fw_met_policy p;

	ASSERT(s);
	fresh(&rec, &p);
	plan_at(&rec, s, 0, 2, 4, 2, 0);
	plan_at(&rec, s, 1800, 2, 2, 2, 2);
	plan_at(&rec, s, t2, 2, 4, 2, 0);
	ASSERT_OK(fw_met_compute(two, 2, &rec, 8, &p));
	ASSERT_NEAR(p.fairness_jain_win[0], (0.8 + 5000 + 0.64) / 5002, 1e-12);
	ASSERT_NEAR(p.fairness_jain, (0.5 * 1800 + (double)(t2 - 1800) + 0.5 * 2700) / (double)end, 1e-12);
	fw_met_policy_release(&p);
	fw_met_rec_release(&rec);
	fw_snapshot_free(s);
}

/*
 * Two queues take turns: 0..1 h the first holds 4 GPUs and the second none,
 * 1..2 h the reverse, both with a fair share of 2.  At every instant Jain is
 * 0.5, and in each 1-hour window too; over a 6-hour (or longer) window each
 * got exactly its fair GPU-time, so 1.  A third plan at 1 h 30 min swaps
 * nothing: windows are cut by time, not by plans.
 */
TEST(fairness_over_windows_counts_turns_taken)
{
	static const struct fw_met_job turns[] = {
		{ 0, 3600, 0, 4, 0, 0, false, 0, NULL, 0, 0, false, 0, 0, false },
		{ 0, 3600, 3600, 4, 1, 0, false, 0, NULL, 0, 0, false, 0, 0, false },
	};
	struct fw_snapshot *s = two_teams(2000);
	struct fw_met_rec rec;
	struct fw_met_policy p;

	ASSERT(s);
	fresh(&rec, &p);
	plan_at(&rec, s, 0, 2, 4, 2, 0);
	plan_at(&rec, s, 3600, 2, 0, 2, 4);
	plan_at(&rec, s, 5400, 2, 0, 2, 4);
	ASSERT_OK(fw_met_compute(turns, 2, &rec, 4, &p));
	ASSERT_NEAR(p.fairness_jain, 0.5, 1e-9);
	ASSERT_EQ(fw_met_jain_window_s[0], 3600);
	ASSERT_NEAR(p.fairness_jain_win[0], 0.5, 1e-9);
	for (int w = 1; w < FW_MET_NWIN; w++)
		ASSERT_NEAR(p.fairness_jain_win[w], 1.0, 1e-9);
	fw_met_policy_release(&p);
	memset(&p, 0, sizeof p);
	ASSERT_OK(fw_met_compute(turns, 2, NULL, 4, &p)); /* no plans: none */
	for (int w = 0; w < FW_MET_NWIN; w++)
		ASSERT(p.fairness_jain_win[w] < 0);
	fw_met_policy_release(&p);
	fw_met_rec_release(&rec);
	fw_snapshot_free(s);
}

/*
 * A tree: research (0) over llm (1) and vision (2); 8 GPUs.  A (llm) runs
 * 6 GPUs [0, 100); B (llm, 4 GPUs) waits [10, 100) and C (vision, 2 GPUs)
 * waits [50, 100), both with 2 GPUs free.  Idle while waiting: llm
 * 2 x 90 = 180 GPU-s, vision 2 x 50 = 100, and research, while either
 * waits, 2 x 90 = 180: its subtree's, neither 0 nor the sum 280.
 */
TEST(a_parent_queue_waits_while_its_subtree_does)
{
	static const struct fw_met_job tree[] = {
		{ 0, 100, 0, 6, 1, 0, false, 0, NULL, 0, 0, false, 0, 0, false },
		{ 10, 50, 100, 4, 1, 0, false, 0, NULL, 0, 0, false, 0, 0, false },
		{ 50, 50, 100, 2, 2, 0, false, 0, NULL, 0, 0, false, 0, 0, false },
	};
	static const char *const name[] = { "research", "llm", "vision" };
	struct fw_snapshot *s = fw_snapshot_new();
	struct fw_met_rec rec;
	struct fw_met_policy p;
	struct fw_queue q;

	ASSERT(s);
	for (int i = 0; i < 3; i++) {
		fw_queue_init(&q);
		snprintf(q.name, sizeof q.name, "%s", name[i]);
		q.parent = i ? 0 : -1;
		ASSERT(fw_snapshot_add_queue(s, &q) >= 0);
	}
	fresh(&rec, &p);
	plan_at(&rec, s, 0, 0, 0, 0, 0); /* the plans give the tree */
	ASSERT_EQ(rec.nq, 3);
	ASSERT_EQ(rec.parent[2], 0);
	ASSERT_OK(fw_met_compute(tree, 3, &rec, 8, &p));
	ASSERT_NEAR(p.q[1].idle_while_waiting_gpu_h * 3600, 180, 1e-6);
	ASSERT_NEAR(p.q[2].idle_while_waiting_gpu_h * 3600, 100, 1e-6);
	ASSERT_NEAR(p.q[0].idle_while_waiting_gpu_h * 3600, 180, 1e-6);
	ASSERT_NEAR(p.idle_while_waiting_gpu_h * 3600, 180, 1e-6);
	fw_met_policy_release(&p);
	memset(&p, 0, sizeof p);
	ASSERT_OK(fw_met_compute(tree, 3, NULL, 8, &p)); /* no tree known: each its own */
	ASSERT_NEAR(p.q[0].idle_while_waiting_gpu_h, 0, 1e-12);
	fw_met_policy_release(&p);
	fw_met_rec_release(&rec);
	fw_snapshot_free(s);
}

/* ---- end to end through the command line --------------------------------------- */

static const char synth[] =
	"job_id,submission_time,duration,num_gpu\n"
	"A,0,100,6\n"
	"B,5,50,12\n"
	"C,6,20,2\n"
	"D,300,10,20\n"
	"E,301,10,1\n"
	"F,310,400,4\n"
	"G,320,30,8\n";

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *b = NULL;
	long len;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (b = calloc(1, (size_t)len + 1)) && fread(b, 1, (size_t)len, f) != (size_t)len) {
		free(b);
		b = NULL;
	}
	fclose(f);
	*n = b ? strlen(b) : 0;
	return b;
}

static int run_cli(const char *trace, const char *js, const char *csv, const char *html)
{
	char *argv[] = { "fairway-sim", "run", "--trace", (char *)trace, "--nodes", "2x8",
			 "--tick", "10", "--policies", "fifo,fairway,kai", "--json", (char *)js,
			 "--csv", (char *)csv, "--report", (char *)html, NULL };

	return fw_sim_cli(16, argv);
}

struct tmpf {
	char dir[64], trace[128], js[128], csv[128], html[128], html2[128];
};

static void tmpf_make(struct tmpf *t)
{
	snprintf(t->dir, sizeof t->dir, "/tmp/fw_test_metrics_XXXXXX");
	if (!mkdtemp(t->dir))
		return;
	snprintf(t->trace, sizeof t->trace, "%s/t.csv", t->dir);
	snprintf(t->js, sizeof t->js, "%s/m.json", t->dir);
	snprintf(t->csv, sizeof t->csv, "%s/m.csv", t->dir);
	snprintf(t->html, sizeof t->html, "%s/r.html", t->dir);
	snprintf(t->html2, sizeof t->html2, "%s/r2.html", t->dir);
	FILE *f = fopen(t->trace, "w");
	if (f) {
		fputs(synth, f);
		fclose(f);
	}
}

static void tmpf_drop(struct tmpf *t)
{
	unlink(t->trace);
	unlink(t->js);
	unlink(t->csv);
	unlink(t->html);
	unlink(t->html2);
	rmdir(t->dir);
}

/* fairway-sim with argv (NULL-ended; "@trace", "@json", "@csv" and
 * "@html" stand for t's files) over a trace of the given text, in a new
 * t: its JSON, NULL when the run failed. */
static json_t *replay_cli(struct tmpf *t, const char *trace, char **argv)
{
	json_error_t e;
	int argc = 0;

	tmpf_make(t);
	FILE *f = fopen(t->trace, "w");
	if (!f)
		return NULL;
	fputs(trace, f);
	fclose(f);
	for (; argv[argc]; argc++)
		argv[argc] = !strcmp(argv[argc], "@trace") ? t->trace
			     : !strcmp(argv[argc], "@json") ? t->js
			     : !strcmp(argv[argc], "@csv")  ? t->csv
			     : !strcmp(argv[argc], "@html") ? t->html
							    : argv[argc];
	return fw_sim_cli(argc, argv) == 0 ? json_load_file(t->js, 0, &e) : NULL;
}

static void check_policy_json(json_t *p)
{
	double occ = json_real_value(json_object_get(p, "occupancy"));
	double cap = json_real_value(json_object_get(p, "capacityGpuH"));
	double used = json_real_value(json_object_get(p, "usedGpuH"));
	double idle = json_real_value(json_object_get(p, "idleWhileWaitingGpuH"));
	double jain = json_real_value(json_object_get(p, "fairnessJain"));

	ASSERT_NEAR(used / cap, occ, 1e-9);
	ASSERT(idle >= 0 && idle <= cap - used + 1e-9);
	ASSERT(jain > 0 && jain <= 1 + 1e-12);
	ASSERT_NEAR(json_real_value(json_object_get(p, "goodputGpuH")), used, 1e-9);
	ASSERT(json_is_number(json_object_get(p, "fairnessMaxDev")));
	json_t *s = json_object_get(p, "series");
	ASSERT_EQ(json_array_size(json_object_get(s, "occupancy")), FW_MET_BINS);
	json_t *cdf = json_object_get(json_object_get(s, "timeToStartPercentilesS"), "all");
	ASSERT_EQ(json_array_size(cdf), 101);
	json_t *q = json_object_get(json_object_get(p, "byQueue"), "vc-6214e9");
	ASSERT(json_object_get(q, "shareRatioMean"));
	ASSERT(json_object_get(q, "idleWhileWaitingGpuH"));
	ASSERT(json_is_number(json_object_get(p, "lostGpuH")));
	ASSERT(json_is_number(json_object_get(p, "evictionsPerJobMean")));
	ASSERT(json_is_integer(json_object_get(p, "evictionsPerJobMax")));
	json_t *est = json_object_get(p, "startEstimates");
	ASSERT(json_is_integer(json_object_get(est, "jobs")));
	ASSERT(json_object_get(est, "absErrP50S"));
	json_t *big = json_object_get(est, "multiNodeWaited1h");
	ASSERT(json_is_integer(json_object_get(big, "jobs")));
	ASSERT(json_object_get(big, "absErrP50S"));
	ASSERT(json_object_get(big, "absErrOverWaitP50"));
}

TEST(cli_writes_json_csv_and_a_deterministic_report)
{
	struct tmpf t;
	json_error_t e;
	size_t n1, n2;

	tmpf_make(&t);
	ASSERT_EQ(run_cli(t.trace, t.js, t.csv, t.html), 0);
	json_t *root = json_load_file(t.js, 0, &e);
	ASSERT(root);
	json_t *pols = json_object_get(root, "policies");
	ASSERT_EQ(json_array_size(pols), 3);
	ASSERT_EQ(json_integer_value(json_object_get(root, "checkpointS")), FW_SIM_CHECKPOINT_S);
	for (size_t i = 0; i < 3; i++)
		check_policy_json(json_array_get(pols, i));
	json_decref(root);
	char *csv = slurp(t.csv, &n1);
	ASSERT(csv);
	ASSERT(!strncmp(csv, "policy,scope,name,jobs,started,tts_p50_s", 40));
	ASSERT_STR_CONTAINS(csv, "\nfairway,total,all,7,");
	ASSERT_STR_CONTAINS(csv, "\nkai,bucket,9+,");
	ASSERT_STR_CONTAINS(csv, "\nfifo,queue,vc-");
	ASSERT_STR_CONTAINS(csv, ",share_ratio_mean,lost_gpu_h,evictions_per_job_mean,"
			    "evictions_per_job_max,est_jobs,est_abs_err_p50_s,est_big_jobs,"
			    "est_big_abs_err_p50_s,est_big_err_over_wait_p50,timed_out_jobs,"
			    "timed_out_gpu_h,timed_out_cut_gpu_h,max_runtime_s,gpu_hour_budget,over_budget_jobs\n");
	ASSERT_STR_CONTAINS(csv, "\nfairway,total,all,7,");
	size_t lines = 0;
	for (char *c = csv; *c; c++)
		lines += *c == '\n';
	ASSERT_EQ(lines, 1 + 3 * (1 + 5 + 11)); /* header; per policy total, buckets, queues */
	free(csv);
	char *h1 = slurp(t.html, &n1);
	ASSERT(h1);
	ASSERT_STR_CONTAINS(h1, "<!DOCTYPE html>");
	ASSERT_STR_CONTAINS(h1, "<svg");
	ASSERT_STR_CONTAINS(h1, "class=\"win\"");
	ASSERT_STR_CONTAINS(h1, "Occupancy over time");
	ASSERT_STR_CONTAINS(h1, "GPU-hours lost to evictions");
	ASSERT_STR_CONTAINS(h1, "Evictions per job, max");
	ASSERT_STR_CONTAINS(h1, "Median |error|, 9+ GPUs");
	ASSERT(!strstr(h1, "Run-time limits")); /* none in force, none hit: not shown */
	ASSERT(!strstr(h1, "<script") && !strstr(h1, "http://www.w3.org/1999") &&
	       !strstr(h1, "https://"));
	ASSERT_EQ(run_cli(t.trace, t.js, t.csv, t.html2), 0);
	char *h2 = slurp(t.html2, &n2);
	ASSERT(h2);
	ASSERT(n1 == n2 && !memcmp(h1, h2, n1));
	free(h1);
	free(h2);
	tmpf_drop(&t);
}

/*
 * The CLI's path end to end (fw_met_begin installs the checkpoint hook):
 * 1 node x 8, A (8 GPUs, 5000 s); the node fails at 4000 (repair 100) and
 * at 5100.  S = 1800: runs [0, 4000) keeps 3600, [4100, 5100) keeps 0,
 * [5100, 6500).  used 8 x 6400 GPU-s, lost 8 x 1400, goodput 8 x 5000;
 * idle while waiting: [4000, 4100) x 8 GPUs = 800 GPU-s (restarting at
 * 5100 in the same tick waits 0); evictions per job 2 (mean and max).
 */
TEST(metrics_of_a_replay_with_evictions_use_checkpoints_and_runs)
{
	const char text[] = "job_id,submission_time,duration,num_gpu\nA,0,5000,8\n";
	struct fw_sim_failure fl[] = { { 4000, 0, 100, 0, false }, { 5100, 0, 0, 0, false } };
	struct fw_sim_scripted sc = { fl, 2, 0 };
	struct fw_sim_failures src = { fw_sim_scripted_next, &sc };
	struct fw_itp_trace t;
	struct fw_teams teams;
	struct fw_sim_opts o;
	struct fw_sim_result r;
	struct fw_sim_metrics m;
	struct fw_diag d;

	memset(&d, 0, sizeof d);
	fw_teams_builtin(&teams);
	ASSERT_OK(fw_itp_parse(text, sizeof text - 1, "t.csv", 0, &t, &d));
	fw_sim_opts_default(&o);
	o.policy = "fifo";
	o.nodes = 1;
	o.tick_s = 10;
	o.failures = &src;
	struct fw_met_run *mr = fw_met_run_new("t.csv", &o, t.n);
	ASSERT(mr);
	mr->checkpoint_s = 1800;
	fw_met_begin(mr, &o, "fifo");
	ASSERT_OK(fw_sim_run(&t, &teams, &o, &r, &d));
	fw_met_end(mr, &o);
	ASSERT_OK(fw_sim_metrics(&t, &o, &r, r.nqueues, &m));
	ASSERT_OK(fw_met_add(mr, &t, &r, &m, NULL));
	const struct fw_met_policy *p = mr->pol[0];
	ASSERT_EQ(r.end[0], 6500);
	ASSERT_EQ(p->t1, 6500);
	/* JCT = final completion - submit (docs/metrics.md), not start +
	 * duration - submit = 5000 */
	ASSERT_NEAR(m.bucket[FW_SIM_BALL].jct_mean, 6500, 1e-9);
	ASSERT_EQ(m.bucket[FW_SIM_BALL].jct_p95, 6500);
	ASSERT_NEAR(p->used_gpu_h * 3600, 8.0 * 6400, 1e-6);
	ASSERT_NEAR(p->lost_gpu_h * 3600, 8.0 * 1400, 1e-6);
	ASSERT_NEAR(p->goodput_gpu_h * 3600, 8.0 * 5000, 1e-6);
	ASSERT_NEAR(p->idle_while_waiting_gpu_h * 3600, 800, 1e-6);
	ASSERT_NEAR(p->evictions_per_job_mean, 2, 1e-12);
	ASSERT_EQ(p->evictions_per_job_max, 2);
	/* per queue: A's queue has both evictions and all the lost work */
	for (int q = 0; q < p->nq; q++) {
		ASSERT_EQ(p->q[q].evictions, q == r.queue[0] ? 2 : 0);
		ASSERT_NEAR(p->q[q].lost_gpu_h * 3600, q == r.queue[0] ? 8.0 * 1400 : 0, 1e-6);
	}
	fw_met_run_free(mr);
	fw_sim_result_free(&r);
	fw_itp_free(&t);
}

/* One fifo replay of tr (t: its ITP view) into mr: the run, its metrics,
 * and mr's policy row. */
static int fifo_run(struct fw_met_run *mr, const struct fw_trace *tr, const struct fw_itp_trace *t,
		    const struct fw_teams *teams, struct fw_sim_opts *o, struct fw_sim_result *r,
		    struct fw_sim_metrics *m)
{
	struct fw_diag d;
	int rc;

	memset(&d, 0, sizeof d);
	fw_met_begin(mr, o, "fifo");
	rc = fw_sim_run_trace(tr, teams, o, r, &d);
	fw_met_end(mr, o);
	if (rc == FW_OK)
		rc = fw_sim_metrics(t, o, r, r->nqueues, m);
	return rc == FW_OK ? fw_met_add(mr, t, r, m, NULL) : rc;
}

/* The ITP view of a generic trace that the metrics read (submit,
 * duration, GPUs, line per job); t->v is the caller's to free. */
static int itp_view(const struct fw_trace *tr, struct fw_itp_trace *t)
{
	memset(t, 0, sizeof *t);
	if (!(t->v = calloc(tr->n ? tr->n : 1, sizeof *t->v)))
		return FW_ENOMEM;
	t->n = tr->n;
	for (size_t i = 0; i < tr->n; i++)
		t->v[i] = (struct fw_itp_job){ "", tr->v[i].submit, tr->v[i].duration,
					       (int32_t)fw_trace_job_gpus(&tr->v[i]), tr->v[i].line };
	return FW_OK;
}

/*
 * Elastic jobs are measured at the GPUs they started with.  2 x 8 GPUs,
 * tick 60: EL (4 tasks of 8 GPUs, min_member 2) starts at 0 with 2 tasks,
 * 16 GPUs, for 3600 s; S (1 GPU, 100 s) arrives at 10 and waits for them
 * until 3600.  used = 16 x 3600 + 100 GPU-s over a window [0, 3700] of
 * 16 x 3700; no GPU is free while S waits, so idle while waiting is 0
 * (counted at 32 GPUs it went negative and occupancy passed 100%).
 */
TEST(elastic_jobs_count_the_gpus_they_started_with)
{
	const char text[] = "job_id,submit_time,duration,tasks,gpus_per_task,min_member\n"
			    "EL,0,3600,4,8,2\nS,10,100,1,1,1\n";
	struct fw_trace tr;
	struct fw_itp_trace t;
	struct fw_teams teams;
	struct fw_sim_opts o;
	struct fw_sim_result r;
	struct fw_sim_metrics m;
	struct fw_diag d;

	memset(&d, 0, sizeof d);
	fw_teams_builtin(&teams);
	ASSERT_OK(fw_trace_parse_csv(text, sizeof text - 1, "el.csv", 0, &tr, &d));
	ASSERT_OK(itp_view(&tr, &t));
	fw_sim_opts_default(&o);
	o.policy = "fifo";
	o.nodes = 2;
	struct fw_met_run *mr = fw_met_run_new("el.csv", &o, t.n);
	ASSERT(mr);
	ASSERT_OK(fifo_run(mr, &tr, &t, &teams, &o, &r, &m));
	const struct fw_met_policy *p = mr->pol[0];
	ASSERT_EQ(r.start[0], 0);
	ASSERT_EQ(r.gpus[0], 16);
	ASSERT_EQ(r.runs[0].gpus, 16);
	ASSERT_EQ(r.start[1], 3600);
	ASSERT_STR_CONTAINS(r.log, "\"gpus\":16,\"nodes\":[\"n000\",\"n001\"]}");
	ASSERT_EQ(m.makespan_s, 3700);
	ASSERT_NEAR(m.bucket[FW_SIM_BALL].gpu_s, 16.0 * 3600 + 100, 1e-6);
	ASSERT_NEAR(m.occupancy, (16.0 * 3600 + 100) / (16.0 * 3700), 1e-9);
	ASSERT_NEAR(p->used_gpu_h * 3600, 16.0 * 3600 + 100, 1e-6);
	ASSERT_NEAR(p->capacity_gpu_h * 3600, 16.0 * 3700, 1e-6);
	ASSERT_NEAR(p->idle_while_waiting_gpu_h, 0, 1e-12);
	fw_met_run_free(mr);
	fw_sim_result_free(&r);
	fw_trace_free(&tr);
	free(t.v);
}

/*
 * Idle while waiting counts only jobs that may start on the fleet, by the
 * never-start warning's test (fw_trace_unfit_mark), set by des.c as
 * mr->unfit.  2 x 8 GPUs, tick 10, fifo: X (8 GPUs) runs [0, 1000); EL (4
 * tasks of 8 GPUs, min_member 2: 16 GPUs at the least) arrives at 10 and
 * waits for X with 8 GPUs free, then runs [1000, 1100); BIG (a task of 16
 * GPUs, no node has them) arrives at 20 and never starts.  Idle while
 * waiting is EL's wait alone, 990 x 8 = 7920 GPU-s.  Counted by GPUs asked
 * against the cluster's 16, BIG waited ([20, 1000) x 8 = 7840) and EL (32
 * asked) did not.
 */
TEST(idle_while_waiting_leaves_out_the_jobs_that_can_never_start)
{
	const char text[] = "job_id,submit_time,duration,tasks,gpus_per_task,min_member\n"
			    "X,0,1000,1,8,\nEL,10,100,4,8,2\nBIG,20,100,1,16,\n";
	struct fw_fleet_opts fo = { 2, 8, 0, 0 };
	struct fw_snapshot *s;
	struct fw_trace tr;
	struct fw_itp_trace t;
	struct fw_teams teams;
	struct fw_sim_opts o;
	struct fw_sim_result r;
	struct fw_sim_metrics m;
	struct fw_diag d;
	bool unfit[3];

	memset(&d, 0, sizeof d);
	fw_teams_builtin(&teams);
	ASSERT_OK(fw_fleet_generate(&fo, &s, &d));
	ASSERT_OK(fw_trace_parse_csv(text, sizeof text - 1, "ns.csv", 0, &tr, &d));
	ASSERT_OK(itp_view(&tr, &t));
	ASSERT_EQ(fw_trace_unfit_mark(&tr, s, unfit), 1);
	ASSERT(!unfit[0] && !unfit[1] && unfit[2]);
	fw_sim_opts_default(&o);
	o.policy = "fifo";
	o.nodes = 2;
	o.tick_s = 10;
	struct fw_met_run *mr = fw_met_run_new("ns.csv", &o, t.n);
	ASSERT(mr);
	mr->unfit = unfit;
	ASSERT_OK(fifo_run(mr, &tr, &t, &teams, &o, &r, &m));
	const struct fw_met_policy *p = mr->pol[0];
	ASSERT_EQ(r.start[0], 0);
	ASSERT_EQ(r.start[1], 1000);
	ASSERT_EQ(r.gpus[1], 16);
	ASSERT_EQ(r.start[2], -1);
	ASSERT_EQ(p->never_started, 1);
	ASSERT_EQ(p->t1, 1100);
	ASSERT_NEAR(p->idle_while_waiting_gpu_h * 3600, 7920, 1e-6);
	fw_met_run_free(mr);
	fw_sim_result_free(&r);
	fw_trace_free(&tr);
	fw_snapshot_free(s);
	free(t.v);
}

/*
 * Fractional GPUs are measured in one unit, the GPU (1000 milli-GPUs).  One
 * node of one GPU, fifo: H1 and H2 ask half a GPU each, 3600 s, and share
 * it from 0.  The node fails at 1800 (repaired at once): both lose 1800 s
 * (kept nothing) and rerun [1800, 5400).  Every GPU-second below is 0.5 x
 * seconds per job: used 2 x 0.5 x 5400 = 5400 GPU-s (the one GPU, busy
 * the whole window: 100 %), lost 2 x 0.5 x 1800 = 1800, goodput and the
 * queues' GPU-hours 2 x 0.5 x 3600 = 3600, des.c's occupancy 3600 / 5400.
 * Counted as whole GPUs the runs held 2 GPUs of 1 (occupancy 200 %, idle
 * GPUs negative) and goodput (whole) - lost (milli) mixed the two.
 */
TEST(fractional_gpus_are_measured_in_one_unit)
{
	const char text[] = "job_id,submit_time,duration,gpus_per_task,gpu_milli\n"
			    "H1,0,3600,1,500\nH2,0,3600,1,500\n";
	struct fw_sim_failure fl[] = { { 1800, 0, 0, 0, false } };
	struct fw_sim_scripted sc = { fl, 1, 0 };
	struct fw_sim_failures src = { fw_sim_scripted_next, &sc };
	struct fw_trace tr;
	struct fw_itp_trace t;
	struct fw_teams teams;
	struct fw_sim_opts o;
	struct fw_sim_result r;
	struct fw_sim_metrics m;
	struct fw_diag d;

	memset(&d, 0, sizeof d);
	fw_teams_builtin(&teams);
	ASSERT_OK(fw_trace_parse_csv(text, sizeof text - 1, "frac.csv", 0, &tr, &d));
	ASSERT_OK(itp_view(&tr, &t));
	fw_sim_opts_default(&o);
	o.policy = "fifo";
	o.nodes = 1;
	o.gpus_per_node = 1;
	o.tick_s = 10;
	o.failures = &src;
	struct fw_met_run *mr = fw_met_run_new("frac.csv", &o, t.n);
	ASSERT(mr);
	ASSERT_OK(fifo_run(mr, &tr, &t, &teams, &o, &r, &m));
	const struct fw_met_policy *p = mr->pol[0];
	ASSERT_EQ(r.start[0], 0);
	ASSERT_EQ(r.start[1], 0);                         /* they share the GPU */
	ASSERT_EQ(r.end[0], 5400);
	ASSERT_EQ(r.end[1], 5400);
	ASSERT_EQ(p->t1, 5400);
	ASSERT_NEAR(p->capacity_gpu_h * 3600, 5400, 1e-6);
	ASSERT_NEAR(p->used_gpu_h * 3600, 5400, 1e-6);
	ASSERT_NEAR(p->lost_gpu_h * 3600, 1800, 1e-6);
	ASSERT_NEAR(p->goodput_gpu_h * 3600, 3600, 1e-6);
	ASSERT_NEAR(m.bucket[FW_SIM_BALL].gpu_s, 3600, 1e-6);
	ASSERT_NEAR(m.occupancy, 3600.0 / 5400.0, 1e-9);
	double qs = 0;
	for (int q = 0; q < p->nq; q++)
		qs += p->q[q].gpu_h;
	ASSERT_NEAR(qs * 3600, 3600, 1e-6);
	for (int b = 0; b < p->nbins; b++)
		ASSERT_NEAR(p->occupancy_series[b], 1.0, 1e-6);
	ASSERT_NEAR(p->idle_while_waiting_gpu_h, 0, 1e-9);
	fw_met_run_free(mr);
	fw_sim_result_free(&r);
	fw_trace_free(&tr);
	free(t.v);
}

/*
 * Jobs that never start keep the window open.  1 node x 8, tick 10: A (1
 * GPU) runs [0, 10); B (16 GPUs) can never fit; C (1 GPU, at 100) and D
 * (1 GPU, at 500).  fifo holds C and D behind B forever: its replay ends
 * at the last arrival, 500, so its window is [0, 500] (makespan 500, not
 * the 10 of its last completion) and C and D wait with 8 GPUs free over
 * [100, 500): 3200 GPU-s.  fairway skips B: C runs [100, 150), D [500,
 * 550).  fifo's shorter makespan earns no star: it left 3 jobs never
 * started, fairway 1 (B, which no policy can start).
 */
static const char never_text[] = "job_id,submission_time,duration,num_gpu\n"
				 "A,0,10,1\nB,20,50,16\nC,100,50,1\nD,500,50,1\n";

static void replay_into(struct fw_met_run *mr, const struct fw_itp_trace *t, const char *policy)
{
	struct fw_teams teams;
	struct fw_sim_opts o;
	struct fw_sim_result r;
	struct fw_sim_metrics m;
	struct fw_diag d;

	memset(&d, 0, sizeof d);
	fw_teams_builtin(&teams);
	fw_sim_opts_default(&o);
	o.policy = policy;
	o.nodes = 1;
	o.tick_s = 10;
	fw_met_begin(mr, &o, policy);
	ASSERT_OK(fw_sim_run(t, &teams, &o, &r, &d));
	fw_met_end(mr, &o);
	ASSERT_OK(fw_sim_metrics(t, &o, &r, r.nqueues, &m));
	ASSERT_OK(fw_met_add(mr, t, &r, &m, NULL));
	fw_sim_result_free(&r);
}

TEST(never_started_jobs_keep_the_window_open_and_win_no_star)
{
	struct fw_itp_trace t;
	struct fw_sim_opts o;
	struct fw_diag d;
	char *out = NULL;
	size_t len = 0;

	memset(&d, 0, sizeof d);
	fw_sim_opts_default(&o);
	o.nodes = 1;
	ASSERT_OK(fw_itp_parse(never_text, sizeof never_text - 1, "t.csv", 0, &t, &d));
	struct fw_met_run *mr = fw_met_run_new("t.csv", &o, t.n);
	ASSERT(mr);
	replay_into(mr, &t, "fifo");
	replay_into(mr, &t, "fairway");
	const struct fw_met_policy *fifo = mr->pol[0], *fw = mr->pol[1];
	ASSERT_EQ(fifo->never_started, 3);
	ASSERT_EQ(fifo->t1, 500);
	ASSERT_EQ(fifo->base.makespan_s, 500);
	ASSERT_NEAR(fifo->idle_while_waiting_gpu_h * 3600, 3200, 1e-6);
	ASSERT_NEAR(fifo->base.occupancy, 10.0 / (8 * 500), 1e-12);
	ASSERT_EQ(fw->never_started, 1);
	ASSERT_EQ(fw->base.makespan_s, 550);
	ASSERT(fw_met_may_win(mr, 1) && !fw_met_may_win(mr, 0));
	FILE *f = open_memstream(&out, &len);
	ASSERT(f);
	fw_met_print_compare(mr, f);
	fclose(f);
	char *mk = strstr(out, "\nmakespan ");
	ASSERT(mk);
	ASSERT_EQ(strcspn(mk + 1, "*"), strcspn(mk + 1, "\n") - 1); /* the star: fairway's, last */
	free(out);
	fw_met_run_free(mr);
	fw_itp_free(&t);
}

/* --checkpoint S: a whole number of seconds, 0 = restart from scratch. */
/*
 * A job evicted and never restarted is waiting when the replay ends: it is
 * not a started job (time to start, JCT, estimates, its queue's GPU-hours)
 * and it waits up to the end of the window like a job never started.  The
 * on_tick hook evicts A at `at` and marks 7 of the node's 8 GPUs bad (the
 * jobs on them run on; nothing starts there): A (4 GPUs) never fits again.
 */
struct strand {
	int64_t at;
	int applied;
};
static struct strand strand;

static int strand_a(void *ctx, struct fw_sim *sim, const struct fw_snapshot *s)
{
	struct fw_decision dec;
	struct fw_plan p;
	int32_t nn;
	struct fw_node *n = fw_sim_nodes(sim, &nn);

	(void)ctx;
	if (s->now != strand.at || strand.applied)
		return FW_OK;
	memset(&dec, 0, sizeof dec);
	memset(&p, 0, sizeof p);
	dec.kind = FW_DECIDE_EVICT;
	dec.node = dec.job = -1;
	for (int32_t k = 0; k < s->njobs; k++)
		if (!strcmp(s->jobs[k].name, "A"))
			dec.job = k;
	p.now = s->now;
	p.decisions = &dec;
	p.ndecisions = 1;
	strand.applied++;
	n[0].bad_gpu_mask = 0xfeu; /* jobs on them run on; nothing starts there */
	return fw_sim_apply_plan(sim, &p);
}

static struct fw_met_run *strand_replay(const char *text, int64_t at, enum fw_sim_tick_rule rule,
					struct fw_itp_trace *t, struct fw_sim_metrics *m)
{
	struct fw_teams teams;
	struct fw_sim_opts o;
	struct fw_sim_result r;
	struct fw_diag d;

	memset(&d, 0, sizeof d);
	fw_teams_builtin(&teams);
	if (fw_itp_parse(text, strlen(text), "t.csv", 0, t, &d) != FW_OK)
		return NULL;
	fw_sim_opts_default(&o);
	o.policy = "fifo";
	o.nodes = 1;
	o.tick_s = 10;
	o.tick_rule = rule;
	struct fw_met_run *mr = fw_met_run_new("t.csv", &o, t->n);
	if (!mr)
		return NULL;
	strand = (struct strand){ at, 0 };
	fw_met_begin(mr, &o, "fifo");
	mr->hooks.on_tick = strand_a;
	int rc = fw_sim_run(t, &teams, &o, &r, &d);
	fw_met_end(mr, &o);
	if (rc == FW_OK && strand.applied == 1 && r.start[0] == 0 && r.end[0] < 0 &&
	    fw_sim_metrics(t, &o, &r, r.nqueues, m) == FW_OK && fw_met_add(mr, t, &r, m, NULL) == FW_OK) {
		fw_sim_result_free(&r);
		return mr;
	}
	fw_sim_result_free(&r);
	fw_met_run_free(mr);
	return NULL;
}

/*
 * 1 node x 8, fifo.  A (4 GPUs, 1000 s), B (2 GPUs, 100 s) and C (2 GPUs,
 * 400 s) start at 0.  At 100 (B's completion) A is evicted and stranded;
 * the replay ends at C's completion, 400.  A waits [100, 400) with 6 GPUs
 * free: 1800 GPU-s idle while waiting.  Started jobs: B and C (time to
 * start 0, 0); their GPU-hours 2 x 100 + 2 x 400 = 1000 GPU-s, which is
 * also the goodput: used 4 x 100 + 1000, minus A's 400 lost.  A policy
 * that left no job waiting may win the rows over started jobs; this one
 * may not (fw_met_may_win).
 */
TEST(a_job_evicted_and_never_restarted_waits_to_the_end)
{
	struct fw_itp_trace t;
	struct fw_sim_metrics m;
	const char text[] = "job_id,submission_time,duration,num_gpu\n"
			    "A,0,1000,4\nB,0,100,2\nC,0,400,2\n";
	struct fw_met_run *mr = strand_replay(text, 100, FW_SIM_EVERY_TICK, &t, &m);

	ASSERT(mr);
	const struct fw_met_policy *p = mr->pol[0];
	ASSERT_EQ(m.bucket[FW_SIM_BALL].started, 2);     /* des.c: B and C */
	ASSERT_EQ(m.makespan_s, 400);
	ASSERT_EQ(p->t1, 400);
	ASSERT_EQ(p->ntts[FW_SIM_BALL], 2);               /* the CDF: B and C too */
	ASSERT_EQ(p->ntts[FW_SIM_B2_8], 2);
	ASSERT_EQ(p->never_started, 0);
	ASSERT_EQ(p->evicted_waiting, 1);
	ASSERT_NEAR(p->idle_while_waiting_gpu_h * 3600, 1800, 1e-6);
	ASSERT_NEAR(p->used_gpu_h * 3600, 1400, 1e-6);
	ASSERT_NEAR(p->lost_gpu_h * 3600, 400, 1e-6);
	ASSERT_NEAR(p->goodput_gpu_h * 3600, 1000, 1e-6);
	double qs = 0;
	for (int q = 0; q < p->nq; q++)
		qs += p->q[q].gpu_h;
	ASSERT_NEAR(qs * 3600, 1000, 1e-6);               /* = des.c's gpu_s */
	ASSERT_NEAR(m.bucket[FW_SIM_BALL].gpu_s, 1000, 1e-6);
	struct fw_met_policy other; /* a policy that left nothing waiting */
	memset(&other, 0, sizeof other);
	mr->pol[mr->npol++] = &other;
	ASSERT(!fw_met_may_win(mr, 0) && fw_met_may_win(mr, 1));
	mr->npol--;
	fw_met_run_free(mr);
	fw_itp_free(&t);
}

/*
 * When the eviction is the replay's last event, the replay ends there.  X
 * (16 GPUs) can never fit and keeps every-tick cycles going; A runs from 0
 * and is stranded at 300; nothing else happens.  Window [0, 300] in both
 * des.c (makespan) and the metrics; A's run is 4 x 300 GPU-s.
 */
TEST(a_replay_that_ends_with_an_eviction_ends_there)
{
	struct fw_itp_trace t;
	struct fw_sim_metrics m;
	const char text[] = "job_id,submission_time,duration,num_gpu\nA,0,1000,4\nX,0,10,16\n";
	struct fw_met_run *mr = strand_replay(text, 300, FW_SIM_ALL_TICKS, &t, &m);

	ASSERT(mr);
	const struct fw_met_policy *p = mr->pol[0];
	ASSERT_EQ(p->t1 - p->t0, 300);
	ASSERT_EQ(m.makespan_s, 300);
	ASSERT_NEAR(p->used_gpu_h * 3600, 1200, 1e-6);
	ASSERT_NEAR(p->capacity_gpu_h * 3600, 8.0 * 300, 1e-6);
	ASSERT_EQ(p->ntts[FW_SIM_BALL], 0);
	fw_met_run_free(mr);
	fw_itp_free(&t);
}

/*
 * Run-time limits reach the CSV and the report.  1 node x 8 GPUs, tick
 * 10: A (4 GPUs, 1000 s, its own limit 100 s) and B (4 GPUs, 1000 s, none)
 * start at 0.  fifo: A ends at 100 (4 x 100 GPU-s run, 4 x 900 cut), B
 * completes; fifo:max-runtime=50: both end at 50 (2 x 4 x 50 run, 2 x 4 x
 * 950 cut).  The total rows end in timed_out_jobs, timed_out_gpu_h,
 * timed_out_cut_gpu_h, max_runtime_s; bucket and queue rows leave them
 * empty.  The report shows the run-time limit rows.
 */
TEST(limits_reach_the_csv_and_the_report)
{
	struct tmpf t;
	size_t n;
	char *argv[] = { "fairway-sim", "run", "--trace", "@trace", "--format", "fairway", "--nodes", "1x8",
			 "--tick", "10", "--policies", "fifo,fifo:max-runtime=50", "--json", "@json",
			 "--csv", "@csv", "--report", "@html", NULL };
	json_t *root = replay_cli(&t, "job_id,submit_time,duration,gpus_per_task,max_runtime\nA,0,1000,4,100\nB,0,1000,4,\n",
				  argv);

	ASSERT(root);
	ASSERT_EQ(json_integer_value(json_object_get(root, "jobLimits")), 1);
	json_t *p0 = json_array_get(json_object_get(root, "policies"), 0);
	ASSERT_EQ(json_integer_value(json_object_get(p0, "timedOutJobs")), 1);
	ASSERT_NEAR(json_real_value(json_object_get(p0, "timedOutCutGpuH")), 1.0, 1e-12);
	json_decref(root);
	char *csv = slurp(t.csv, &n);
	ASSERT(csv);
	ASSERT_STR_CONTAINS(csv, ",timed_out_jobs,timed_out_gpu_h,timed_out_cut_gpu_h,max_runtime_s,"
			    "gpu_hour_budget,over_budget_jobs\n");
	/* ... est columns, then 1 job, 400/3600 GPU-h run, 1 GPU-h cut, no
	 * queue limit; no budget, none held */
	ASSERT_STR_CONTAINS(csv, ",1,0.1111111111,1,0,0,0\nfifo,bucket,1,");
	ASSERT_STR_CONTAINS(csv, ",2,0.1111111111,2.111111111,50,0,0\nfifo:max-runtime=50,bucket,1,");
	ASSERT_STR_CONTAINS(csv, "\nfifo,bucket,2-8,2,2,0,0,0,550,1000,1.222222222,,,1.222222222,,,,2,0,,,,,,,,,,,,,,,,,,\n");
	free(csv);
	char *h = slurp(t.html, &n);
	ASSERT(h);
	ASSERT_STR_CONTAINS(h, "<td colspan=\"4\">Run-time limits</td>");
	ASSERT_STR_CONTAINS(h, "<tr><td>Every queue's limit (--max-runtime)</td><td class=\"dir\"></td>"
			    "<td>none</td><td>50 s</td></tr>");
	ASSERT_STR_CONTAINS(h, "<tr><td>Jobs with a limit of their own (trace max_runtime)</td>"
			    "<td class=\"dir\"></td><td>1</td><td>1</td></tr>");
	ASSERT_STR_CONTAINS(h, "<tr><td>Jobs ended by their run-time limit (TIMEOUT)</td><td class=\"dir\">"
			    "</td><td>1</td><td>2</td></tr>");
	ASSERT_STR_CONTAINS(h, "<tr><td>GPU-hours of their work the limit cut</td><td class=\"dir\"></td>"
			    "<td>1.0</td><td>2.1</td></tr>");
	ASSERT(!strstr(h, "GPU-hour budgets")); /* no budget, none held: no budget rows */
	ASSERT(!strstr(h, "half-life"));
	free(h);
	tmpf_drop(&t);
}

/* A (qa, 8 GPUs, 600 s) spends qa's budget; B (qa, from 100) waits on it. */
#define BUDGET_TRACE "job_id,submit_time,duration,gpus_per_task,queue\nA,0,600,8,qa\nB,100,100,8,qa\n"

/*
 * GPU-hour budgets reach the CSV.  1 node x 8 GPUs, tick 10, every queue
 * 1 GPU-h (7-day half-life): A (qa, 8 GPUs, 600 s) leaves qa at 1.33
 * GPU-h, so B (qa, 8 GPUs, from 100) is held over the budget until that
 * decays, about 2.9 days; fifo:gpu-hour-budget=0 runs B at 600.  The total
 * rows end in gpu_hour_budget, over_budget_jobs (1, 1 and 0, 0); bucket
 * and queue rows leave them empty.
 */
TEST(budgets_reach_the_csv)
{
	struct tmpf t;
	size_t n;
	char *argv[] = { "fairway-sim", "run", "--trace", "@trace", "--format", "fairway", "--nodes", "1x8",
			 "--tick", "10", "--policies", "fifo,fifo:gpu-hour-budget=0", "--gpu-hour-budget", "1",
			 "--json", "@json", "--csv", "@csv", NULL };
	json_t *root = replay_cli(&t, BUDGET_TRACE, argv);

	ASSERT(root);
	ASSERT_NEAR(json_real_value(json_object_get(root, "gpuHourBudget")), 1, 0);
	json_t *p0 = json_array_get(json_object_get(root, "policies"), 0);
	json_t *p1 = json_array_get(json_object_get(root, "policies"), 1);
	ASSERT_EQ(json_integer_value(json_object_get(p0, "overBudgetJobs")), 1);
	ASSERT_EQ(json_integer_value(json_object_get(p1, "overBudgetJobs")), 0);
	ASSERT_NEAR(json_real_value(json_object_get(p1, "gpuHourBudget")), 0, 0);
	ASSERT(json_integer_value(json_object_get(p0, "makespanS")) > 2 * 86400);
	ASSERT_EQ(json_integer_value(json_object_get(p1, "makespanS")), 700);
	json_decref(root);
	char *csv = slurp(t.csv, &n);
	ASSERT(csv);
	ASSERT_STR_CONTAINS(csv, ",max_runtime_s,gpu_hour_budget,over_budget_jobs\n");
	ASSERT_STR_CONTAINS(csv, ",0,1,1\nfifo,bucket,1,");
	ASSERT_STR_CONTAINS(csv, ",0,0,0\nfifo:gpu-hour-budget=0,bucket,1,");
	ASSERT_STR_CONTAINS(csv, "\nfifo,queue,qa,2,2,");
	ASSERT(!strstr(csv, ",1,1\nfifo,queue")); /* queue rows: the columns empty */
	free(csv);
	tmpf_drop(&t);
}

/*
 * GPU-hour budgets reach the report, with the half-life.  The trace of
 * budgets_reach_the_csv under --usage-half-life 86400: A leaves qa at u =
 * 8 h/ln2 (1 - 2^(-600/h)) GPU-s at 600, which decays below the budget
 * (3600 GPU-s) at 600 + h log2(u/3600), so B starts at the next tick
 * (36,250, not the 7-day half-life's 2.9 days) and ends 100 s later.
 * The report's budget rows: the budget (none for the variant), the
 * half-life, the GPUs a budget sustains (budget x 3600 ln 2 / h; none
 * without one) and the jobs held.
 */
TEST(budgets_and_the_half_life_reach_the_report)
{
	const double h = 86400;
	double u = 8 * h / log(2.0) * (1 - exp2(-600 / h)), cross = 600 + h * log2(u / 3600);
	int64_t start = ((int64_t)floor(cross) / 10 + 1) * 10;
	struct tmpf t;
	size_t n;
	char want[256], g[32];
	char *argv[] = { "fairway-sim", "run", "--trace", "@trace", "--format", "fairway", "--nodes", "1x8",
			 "--tick", "10", "--policies", "fifo,fifo:gpu-hour-budget=0", "--gpu-hour-budget", "1",
			 "--usage-half-life", "86400", "--json", "@json", "--report", "@html", NULL };

	ASSERT(start > 600 && start < 2 * 86400);
	json_t *root = replay_cli(&t, BUDGET_TRACE, argv);
	ASSERT(root);
	ASSERT_EQ(json_integer_value(json_object_get(root, "usageHalfLifeS")), 86400);
	json_t *p0 = json_array_get(json_object_get(root, "policies"), 0);
	ASSERT_EQ(json_integer_value(json_object_get(p0, "makespanS")), start + 100);
	ASSERT_EQ(json_integer_value(json_object_get(p0, "overBudgetJobs")), 1);
	json_decref(root);
	char *html = slurp(t.html, &n);
	ASSERT(html);
	ASSERT_STR_CONTAINS(html, "<tr class=\"sec\"><td colspan=\"4\">GPU-hour budgets</td></tr>\n"
			    "<tr><td>Every queue's budget, GPU-hours (--gpu-hour-budget)</td><td class=\"dir\"></td>"
			    "<td>1</td><td>none</td></tr>");
	ASSERT_STR_CONTAINS(html, "<tr><td>Usage half-life (--usage-half-life)</td><td class=\"dir\"></td>"
			    "<td>24.0 h</td><td>24.0 h</td></tr>");
	snprintf(g, sizeof g, "%.3g", 3600 * log(2.0) / h);
	snprintf(want, sizeof want, "(budget \xc3\x97 ln 2 / half-life)</td><td class=\"dir\"></td><td>%s</td>"
		 "<td>\xe2\x80\x94</td></tr>", g);
	ASSERT_STR_CONTAINS(html, want);
	ASSERT_STR_CONTAINS(html, "<tr><td>Jobs held over their queue's budget (over_budget)</td>"
			    "<td class=\"dir\"></td><td>1</td><td>0</td></tr>");
	free(html);
	tmpf_drop(&t);
}

TEST(cli_checkpoint_flag_takes_seconds_or_zero)
{
	struct tmpf t;
	json_error_t e;
	char *bad[] = { "fairway-sim", "run", "--trace", NULL, "--checkpoint", "-5", NULL };
	char *zero[] = { "fairway-sim", "run", "--trace", NULL, "--nodes", "2x8", "--checkpoint",
			 "0", "--json", NULL, NULL };

	tmpf_make(&t);
	bad[3] = zero[3] = t.trace;
	zero[9] = t.js;
	ASSERT_EQ(fw_sim_cli(6, bad), 2);
	bad[5] = "1.5s"; /* whole seconds */
	ASSERT_EQ(fw_sim_cli(6, bad), 2);
	ASSERT_EQ(fw_sim_cli(10, zero), 0);
	json_t *root = json_load_file(t.js, 0, &e);
	ASSERT(root);
	ASSERT_EQ(json_integer_value(json_object_get(root, "checkpointS")), 0);
	json_decref(root);
	zero[7] = "30m"; /* a duration, as the config's checkpointInterval */
	ASSERT_EQ(fw_sim_cli(10, zero), 0);
	ASSERT(root = json_load_file(t.js, 0, &e));
	ASSERT_EQ(json_integer_value(json_object_get(root, "checkpointS")), 1800);
	json_decref(root);
	tmpf_drop(&t);
}

TEST(cli_rejects_an_unwritable_report_before_replaying)
{
	struct tmpf t;

	tmpf_make(&t);
	ASSERT_EQ(run_cli(t.trace, t.js, t.csv, "/nonexistent-dir/r.html"), 1);
	tmpf_drop(&t);
}

TEST_MAIN(progress_line_has_bar_percent_and_thousands,
	  fairness_over_windows_counts_turns_taken, fairness_windows_of_a_long_plan_are_added_at_once,
	  shares_csv_has_a_row_per_plan_and_queue,
	  progress_draws_only_when_on_and_erases_its_line,
	  idle_while_waiting_and_occupancy_are_exact,
	  evictions_count_every_run_and_the_wait_between,
	  estimate_accuracy_is_the_median_absolute_error,
	  compare_table_prints_the_eviction_and_estimate_rows,
	  percentiles_are_nearest_rank, percentile_rank_is_exact_for_every_p_and_n,
	  fairness_is_jain_of_allocated_over_fair_averaged_over_time,
	  cli_writes_json_csv_and_a_deterministic_report,
	  metrics_of_a_replay_with_evictions_use_checkpoints_and_runs,
	  elastic_jobs_count_the_gpus_they_started_with,
	  idle_while_waiting_leaves_out_the_jobs_that_can_never_start, fractional_gpus_are_measured_in_one_unit,
	  compare_rows_never_show_a_wait_as_zero_and_multi_node_follows_the_nodes,
	  never_started_jobs_keep_the_window_open_and_win_no_star,
	  a_job_evicted_and_never_restarted_waits_to_the_end,
	  a_replay_that_ends_with_an_eviction_ends_there,
	  limits_reach_the_csv_and_the_report, budgets_reach_the_csv, budgets_and_the_half_life_reach_the_report,
	  cli_checkpoint_flag_takes_seconds_or_zero,
	  cli_rejects_an_unwritable_report_before_replaying,
	  a_parent_queue_waits_while_its_subtree_does)
