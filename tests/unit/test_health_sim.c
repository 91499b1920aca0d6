/*
 * test_health_sim.c — failure injection and the health tracker in the
 * simulator (sim/failure.h), and the LLM-fleet workload (sim/llmfleet.h).
 */
#include <math.h>
#include <stdlib.h>

#include "failure.h"
#include "harness.h"
#include "llmfleet.h"

TEST(failure_rate_and_flaky_share)
{
	struct fw_failure_model m;
	struct fw_sim_failure *v;
	size_t n;
	bool flaky[512];
	double nf = 0, nn = 0;
	int32_t kflaky = 0;

	fw_failure_model_default(&m);
	m.horizon_s = 1000LL * 86400;
	m.repair_s = 0;
	ASSERT_OK(fw_failure_generate(&m, 512, &v, &n, flaky));
	for (int i = 0; i < 512; i++)
		kflaky += flaky[i];
	ASSERT_EQ(kflaky, 26); /* 5% of 512, rounded */
	for (size_t i = 0; i < n; i++) {
		if (flaky[v[i].node])
			nf++;
		else
			nn++;
		if (i)
			ASSERT(v[i - 1].at < v[i].at || (v[i - 1].at == v[i].at && v[i - 1].node < v[i].node));
	}
	/* expected: 486 x 6.5 = 3159 normal, 26 x 65 = 1690 flaky */
	ASSERT_NEAR(nn, 3159, 3159 * 0.06);
	ASSERT_NEAR(nf, 1690, 1690 * 0.10);
	free(v);
}

/* Two failure lists hold the same failures, field by field (a memcmp
 * would compare the structs' padding, which a -O0 build leaves as it
 * finds it). */
static bool same_failures(const struct fw_sim_failure *a, const struct fw_sim_failure *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].at != b[i].at || a[i].node != b[i].node || a[i].repair_s != b[i].repair_s ||
		    a[i].gpus != b[i].gpus || a[i].flap != b[i].flap)
			return false;
	return true;
}

TEST(failure_list_deterministic_and_seeded)
{
	struct fw_failure_model m;
	struct fw_sim_failure *a, *b, *c;
	size_t na, nb, nc;

	fw_failure_model_default(&m);
	ASSERT_OK(fw_failure_generate(&m, 64, &a, &na, NULL));
	ASSERT_OK(fw_failure_generate(&m, 64, &b, &nb, NULL));
	m.seed = 2;
	ASSERT_OK(fw_failure_generate(&m, 64, &c, &nc, NULL));
	ASSERT_EQ(na, nb);
	ASSERT(same_failures(a, b, na));
	ASSERT(na != nc || (na && !same_failures(a, c, na)));
	free(a);
	free(b);
	free(c);
	m.rate_per_1000 = -1;
	ASSERT_EQ(fw_failure_generate(&m, 64, &c, &nc, NULL), FW_EINVAL);
	ASSERT(c == NULL);
}

/* Two 8-GPU nodes; jobs are 16-GPU gangs (2 tasks x 8) or 8-GPU jobs. */
static void add_job(struct fw_trace *t, const char *id, int64_t submit, int64_t dur, int tasks)
{
	struct fw_trace_job j;

	memset(&j, 0, sizeof j);
	snprintf(j.id, sizeof j.id, "%s", id);
	snprintf(j.queue, sizeof j.queue, "q");
	j.submit = submit;
	j.duration = j.expected = dur;
	j.ngroups = 1;
	j.groups[0].count = tasks;
	j.groups[0].gpus = 8;
	j.groups[0].gpu_milli = 1000;
	j.line = (int32_t)t->n + 1;
	fw_trace_push(t, &j);
}

struct run {
	struct fw_sim_result r;
	struct fw_health_tracker k;
};

/* restart_s and flaky: the tracker's restart cost and flaky nodes. */
static int replay_with(const struct fw_trace *t, const struct fw_sim_failure *f, size_t nf, bool aware,
		       int64_t restart_s, const bool *flaky, struct run *x)
{
	struct fw_sim_scripted sc = { f, nf, 0 };
	struct fw_sim_failures fs = { fw_sim_scripted_next, &sc };
	struct fw_sim_hooks h;
	struct fw_sim_opts o;
	struct fw_teams teams;
	struct fw_diag d;

	memset(&x->k, 0, sizeof x->k);
	x->k.aware = aware;
	fw_health_config_default(&x->k.cfg);
	x->k.checkpoint_s = 1800;
	x->k.restart_s = restart_s;
	x->k.flaky = flaky;
	x->k.trace = t;
	x->k.v = f;
	x->k.n = nf;
	if (fw_health_tracker_init(&x->k, 2) != FW_OK)
		return -1;
	fw_health_tracker_hooks(&x->k, &h);
	fw_sim_opts_default(&o);
	o.nodes = 2;
	o.gpus_per_node = 8;
	o.hooks = &h;
	o.next_wake = fw_health_tracker_next_wake;
	o.failures = &fs;
	fw_teams_builtin(&teams);
	return fw_sim_run_trace(t, &teams, &o, &x->r, &d);
}

static int replay(const struct fw_trace *t, const struct fw_sim_failure *f, size_t nf, bool aware,
		  struct run *x)
{
	return replay_with(t, f, nf, aware, 0, NULL, x);
}

static void done(struct run *x)
{
	fw_sim_result_free(&x->r);
	fw_health_tracker_free(&x->k);
}

/* One 2-node gang (16 GPUs) submitted at `submit`, running dur s, replayed
 * health-blind and health-aware with the failures f. */
static int gang_both(struct fw_trace *t, int64_t submit, int64_t dur, const struct fw_sim_failure *f,
		     size_t nf, struct run *blind, struct run *aware)
{
	int rc;

	memset(t, 0, sizeof *t);
	add_job(t, "gang", submit, dur, 2);
	if ((rc = replay(t, f, nf, false, blind)) != FW_OK)
		return rc;
	if ((rc = replay(t, f, nf, true, aware)) != FW_OK)
		done(blind);
	return rc;
}

TEST(failure_restarts_from_checkpoint)
{
	struct fw_trace t;
	struct fw_sim_failure f[] = { { 3000, 0, 600, 0, false } };
	struct run x;

	memset(&t, 0, sizeof t);
	add_job(&t, "gang", 0, 10000, 2);
	ASSERT_OK(replay(&t, f, 1, false, &x));
	/* ran 3000 s, kept the checkpoint at 1800: 1200 s lost, once */
	ASSERT_EQ(x.k.fail_hits[0], 1);
	ASSERT_NEAR(x.k.lost_fail_s[0], 1200, 1e-9);
	ASSERT_NEAR(x.k.lost_s[0], 1200, 1e-9);
	ASSERT_EQ(x.r.failures, 1);
	/* back when node 0 is repaired (t=3600), 10000 - 1800 s left */
	ASSERT_EQ(x.r.end[0], 3600 + 8200);
	done(&x);
	fw_trace_free(&t);
}

TEST(aware_gang_waits_out_probation_blind_does_not)
{
	struct fw_trace t;
	struct fw_sim_failure f[] = { { 100, 0, 600, 0, false } }; /* node 0 back at t=700 */
	struct run blind, aware;
	struct fw_health_config c;

	fw_health_config_default(&c);
	memset(&t, 0, sizeof t);
	add_job(&t, "gang", 1200, 3600, 2);
	add_job(&t, "small", 1200, 600, 1);
	ASSERT_OK(replay(&t, f, 1, false, &blind));
	ASSERT_OK(replay(&t, f, 1, true, &aware));
	ASSERT_EQ(blind.r.start[0], 1200);
	/* the gang avoids the suspect node 0 until its probation ends */
	ASSERT(aware.r.start[0] >= 700 + c.probation_s);
	/* the small job may use the node on probation, at once */
	ASSERT_EQ(aware.r.start[1], 1200);
	ASSERT(aware.k.suspect_node_ticks > 0);
	/* both track the failure; only the aware run writes health */
	ASSERT_EQ(blind.k.rec[0].strikes, 1);
	ASSERT_EQ(aware.k.rec[0].strikes, 1);
	done(&blind);
	done(&aware);
	fw_trace_free(&t);
}

/* History: failures before 0 are drawn too; the replay sees only what is
 * still under repair at 0, moved to 0 with the rest of its repair. */
TEST(failure_history_and_replay_list)
{
	struct fw_failure_model m;
	struct fw_sim_failure *v, *w;
	size_t n, nw, before = 0;

	fw_failure_model_default(&m);
	m.history_s = 90LL * 86400;
	ASSERT_OK(fw_failure_generate(&m, 512, &v, &n, NULL));
	for (size_t i = 0; i < n; i++)
		before += v[i].at < 0;
	/* about 90 / 120 of them are history */
	ASSERT(before * 100 > n * 60 && before * 100 < n * 90);
	ASSERT(v[0].at >= -m.history_s);
	free(v);

	struct fw_sim_failure hist[] = { { -9000, 0, 4000, 0, false }, { -3000, 1, 4000, 0, false }, { 50, 0, 10, 0, false } };
	ASSERT_OK(fw_failure_replay_list(hist, 3, &w, &nw));
	ASSERT_EQ(nw, 2);
	ASSERT_EQ(w[0].at, 0);
	ASSERT_EQ(w[0].node, 1);
	ASSERT_EQ(w[0].repair_s, 1000); /* -3000 + 4000 */
	ASSERT_EQ(w[1].at, 50);
	free(w);
}

/* A restart after a failure costs restart_s on top of the lost work; the
 * loss on a flaky node is tallied apart. */
TEST(restart_cost_and_flaky_tally)
{
	struct fw_trace t;
	struct fw_sim_failure f[] = { { 3000, 0, 600, 0, false } };
	struct run x;
	bool flaky[2] = { true, false };

	memset(&t, 0, sizeof t);
	add_job(&t, "gang", 0, 10000, 2);
	ASSERT_OK(replay_with(&t, f, 1, false, 900, flaky, &x));
	/* 1200 s back to the checkpoint plus 900 s of restart */
	ASSERT_NEAR(x.k.lost_fail_s[0], 2100, 1e-9);
	ASSERT_NEAR(x.k.lost_flaky_s[0], 2100, 1e-9);
	ASSERT_EQ(x.r.end[0], 3600 + 8200 + 900);
	done(&x);
	fw_trace_free(&t);
}

/* The fleet's history makes node 0 a lemon (three failures in the last
 * 50 days).  The aware replay keeps the 16-GPU gang (lemon_gang_gpus 16
 * here) off it, as two other nodes are free, and so escapes node 0's next
 * failure; the blind one bin-packs onto nodes 0 and 1 and loses work. */
TEST(history_lemon_steers_gang)
{
	struct fw_trace t;
	struct fw_sim_failure f[] = { { -50 * 86400, 0, 3600, 0, false }, { -30 * 86400, 0, 3600, 0, false },
				      { -10 * 86400, 0, 3600, 0, false }, { 5000, 0, 600, 0, false } };
	struct fw_health_run run;
	struct fw_health_metrics mb, ma;
	struct fw_diag d;

	memset(&t, 0, sizeof t);
	add_job(&t, "gang", 0, 10000, 2);
	memset(&run, 0, sizeof run);
	fw_health_config_default(&run.cfg);
	run.lemon_gang_gpus = 16;
	ASSERT_OK(fw_health_replay(&t, 3, 8, 20000, f, 4, &run, &mb, &d));
	run.aware = true;
	ASSERT_OK(fw_health_replay(&t, 3, 8, 20000, f, 4, &run, &ma, &d));
	ASSERT(mb.lemon_nodes_mean > 0.99); /* tracked in both */
	ASSERT(ma.lemon_nodes_mean > 0.99);
	ASSERT_EQ(mb.failure_hits, 1);
	ASSERT(mb.lost_gpu_h > 0);
	ASSERT_EQ(ma.failure_hits, 0);
	ASSERT_NEAR(ma.lost_gpu_h, 0, 1e-9);
	ASSERT_EQ(ma.finished, 1);
	ASSERT_EQ(mb.finished, 1);
	fw_trace_free(&t);
}

/* The blind view: a silent failure becomes crashes every crash_s until
 * it is noticed, then the repair; the others stay as they are. */
TEST(silent_fault_blind_view)
{
	struct fw_sim_failure f[] = { { 1000, 0, 4000, 0, false }, { 1200, 1, 50, 0, false } }, *w;
	struct fw_silent_model all = { 1.0, 600, 300 }, none = { 0, 600, 300 };
	struct fw_silent_model bad[] = { { -0.1, 600, 300 }, { 1.5, 600, 300 }, { 0.5, -1, 300 },
					 { 0.5, 600, 0 } };
	size_t n;

	ASSERT_OK(fw_failure_blind_view(f, 2, &none, &w, &n));
	ASSERT_EQ(n, 2);
	ASSERT(same_failures(w, f, 2));
	free(w);
	ASSERT_OK(fw_failure_blind_view(f, 2, &all, &w, &n));
	const struct fw_sim_failure want[] = { { 1000, 0, 0, 0, false },	  { 1200, 1, 0, 0, false },  { 1300, 0, 0, 0, false },
					       { 1500, 1, 0, 0, false },	  { 1600, 0, 4000, 0, false }, { 1800, 1, 50, 0, false } };
	ASSERT_EQ(n, 6);
	for (size_t i = 0; i < 6; i++) {
		ASSERT_EQ(w[i].at, want[i].at);
		ASSERT_EQ(w[i].node, want[i].node);
		ASSERT_EQ(w[i].repair_s, want[i].repair_s);
	}
	free(w);
	/* the choice is a fixed hash of (node, time): about the fraction, and
	 * the same list twice */
	struct fw_failure_model m;
	struct fw_sim_failure *v, *w2;
	size_t nv, n2, silent = 0;
	struct fw_silent_model half = { 0.5, 300, 300 };
	fw_failure_model_default(&m);
	ASSERT_OK(fw_failure_generate(&m, 2048, &v, &nv, NULL));
	ASSERT_OK(fw_failure_blind_view(v, nv, &half, &w, &n));
	ASSERT_OK(fw_failure_blind_view(v, nv, &half, &w2, &n2));
	ASSERT_EQ(n, n2);
	ASSERT(same_failures(w, w2, n));
	for (size_t i = 0; i < n; i++)
		silent += w[i].repair_s == 0;
	ASSERT_EQ(n, nv + silent); /* one crash entry per silent failure */
	ASSERT(silent * 100 > nv * 40 && silent * 100 < nv * 60);
	free(v);
	free(w);
	free(w2);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		ASSERT_EQ(fw_failure_blind_view(f, 2, &bad[i], &w, &n), FW_EINVAL);
		ASSERT(w == NULL);
	}
}

/* Health-blind placement keeps restarting the gang on the silently faulty
 * node: it dies every crash_s until the fault is noticed (1200 s after it
 * struck), then waits out the repair. */
TEST(silent_fault_crash_loop)
{
	struct fw_trace t;
	struct fw_sim_failure f[] = { { 3000, 0, 600, 0, false } }, *w;
	struct fw_silent_model s = { 1.0, 1200, 300 };
	struct run x;
	size_t n;

	memset(&t, 0, sizeof t);
	add_job(&t, "gang", 0, 10000, 2);
	ASSERT_OK(fw_failure_blind_view(f, 1, &s, &w, &n));
	ASSERT_EQ(n, 5);
	ASSERT_OK(replay(&t, w, n, false, &x));
	/* struck at 3000, then started again at 3000, 3300, 3600, 3900 and
	 * killed 300 s later each time; the fault is noticed at 4200 */
	ASSERT_EQ(x.k.fail_hits[0], 5);
	ASSERT_EQ(x.r.evicted[0], 5);
	ASSERT_NEAR(x.k.lost_fail_s[0], 1200 + 4 * 300, 1e-9);
	/* repaired at 4800; 10000 - 1800 s left */
	ASSERT_EQ(x.r.end[0], 4800 + 8200);
	done(&x);
	free(w);
	fw_trace_free(&t);
}

/* fw_health_replay applies the blind view to health-blind runs only: the
 * agent reports the fault to a health-aware fairway at once. */
TEST(silent_faults_change_blind_runs_only)
{
	struct fw_trace t;
	struct fw_sim_failure f[] = { { 3000, 0, 600, 0, false } };
	struct fw_health_run run;
	struct fw_health_metrics b0, b1, a0, a1;
	struct fw_diag d;

	memset(&t, 0, sizeof t);
	add_job(&t, "gang", 0, 10000, 2);
	memset(&run, 0, sizeof run);
	fw_health_config_default(&run.cfg);
	ASSERT_OK(fw_health_replay(&t, 2, 8, 20000, f, 1, &run, &b0, &d));
	run.aware = true;
	ASSERT_OK(fw_health_replay(&t, 2, 8, 20000, f, 1, &run, &a0, &d));
	run.silent = (struct fw_silent_model){ 1.0, 1200, 300 };
	ASSERT_OK(fw_health_replay(&t, 2, 8, 20000, f, 1, &run, &a1, &d));
	run.aware = false;
	ASSERT_OK(fw_health_replay(&t, 2, 8, 20000, f, 1, &run, &b1, &d));
	ASSERT_EQ(b0.failure_hits, 1);
	ASSERT_EQ(b1.failure_hits, 5);
	ASSERT(b1.ettr[FW_HB_MID] < b0.ettr[FW_HB_MID] - 0.05);
	ASSERT_EQ(a1.failure_hits, a0.failure_hits);
	ASSERT_NEAR(a1.ettr[FW_HB_MID], a0.ettr[FW_HB_MID], 1e-12);
	fw_trace_free(&t);
}

/* Without an agent the silent fault reaches the health model only as job
 * failures: the gang dies on node 0 three times (3000, 3300, 3600), the
 * third job failure puts node 0 on probation, and the gang (16 GPUs)
 * restarts on nodes 1 and 2.  Blind, it dies there until the fault is
 * noticed at 6600; with the agent, once. */
TEST(silent_fault_learnt_from_job_failures)
{
	struct fw_trace t;
	struct fw_sim_failure f[] = { { 3000, 0, 600, 0, false } };
	struct fw_health_run run;
	struct fw_health_metrics b, a, n;
	struct fw_diag d;

	memset(&t, 0, sizeof t);
	add_job(&t, "gang", 0, 10000, 2);
	memset(&run, 0, sizeof run);
	fw_health_config_default(&run.cfg);
	run.silent = (struct fw_silent_model){ 1.0, 3600, 300 };
	ASSERT_OK(fw_health_replay(&t, 3, 8, 30000, f, 1, &run, &b, &d));
	run.aware = true;
	ASSERT_OK(fw_health_replay(&t, 3, 8, 30000, f, 1, &run, &a, &d));
	run.no_agent = true;
	ASSERT_OK(fw_health_replay(&t, 3, 8, 30000, f, 1, &run, &n, &d));
	ASSERT_EQ(b.failure_hits, 13); /* 3000, 3300, ..., 6300, then 6600 */
	ASSERT_EQ(a.failure_hits, 1);
	ASSERT_EQ(n.failure_hits, 3);
	ASSERT(a.ettr[FW_HB_MID] > n.ettr[FW_HB_MID]);
	ASSERT(n.ettr[FW_HB_MID] > b.ettr[FW_HB_MID]);
	ASSERT_EQ(n.finished, 1);
	fw_trace_free(&t);
}

TEST(llmfleet_shape)
{
	struct fw_llmfleet f;
	struct fw_trace t, u;
	double big = 0, all = 0;
	size_t nbig = 0;

	fw_llmfleet_default(&f);
	ASSERT_OK(fw_llmfleet_generate(&f, &t));
	ASSERT_OK(fw_llmfleet_generate(&f, &u));
	ASSERT_EQ(t.n, u.n);
	ASSERT(memcmp(t.v, u.v, t.n * sizeof *t.v) == 0);
	ASSERT(t.n > 1000);
	for (size_t i = 0; i < t.n; i++) {
		int64_t g = fw_trace_job_gpus(&t.v[i]);
		double w = fw_trace_job_gpu_s(&t.v[i]);
		all += w;
		if (g >= 256) {
			big += w;
			nbig++;
			ASSERT(t.v[i].duration >= 86400);
		}
		ASSERT(t.v[i].submit >= 0 && t.v[i].submit < f.span_s);
		ASSERT(g >= 1 && g <= 1024);
	}
	/* a few % of the jobs, most of the GPU time */
	ASSERT(nbig * 100 >= t.n * 1 && nbig * 100 <= t.n * 4);
	ASSERT(big / all > 0.7);
	/* offered load near 85% of the fleet over the span */
	/* (one seed: 2% of ~3,000 jobs carry the load, so it varies) */
	ASSERT_NEAR(all / (512.0 * 8 * (double)f.span_s), 0.85, 0.25);
	fw_trace_free(&t);
	fw_trace_free(&u);
}

/* The GPU view: the chosen share of failures strikes one GPU (per_gpu) or
 * keeps the whole node (the Ready-only view), with the GPU repair time in
 * both; crash entries (repair 0) and times are left alone. */
TEST(gpu_fault_view)
{
	struct fw_failure_model m;
	struct fw_sim_failure *v, *a, *b, *z;
	size_t n, na, nb, nz, picked = 0;
	struct fw_gpu_fault_model g = { 0.5, 8, 3 * 86400 };

	fw_failure_model_default(&m);
	ASSERT_OK(fw_failure_generate(&m, 512, &v, &n, NULL));
	ASSERT(n > 100);
	ASSERT_OK(fw_failure_gpu_view(v, n, &g, true, &a, &na));
	ASSERT_OK(fw_failure_gpu_view(v, n, &g, false, &b, &nb));
	ASSERT(na == n && nb == n);
	for (size_t i = 0; i < n; i++) {
		ASSERT(a[i].at == v[i].at && a[i].node == v[i].node && b[i].at == v[i].at);
		ASSERT_EQ(b[i].gpus, 0);                       /* Ready-only: whole nodes */
		ASSERT_EQ(a[i].repair_s, b[i].repair_s);       /* the same repairs */
		if (a[i].gpus) {
			picked++;
			ASSERT_EQ(__builtin_popcount(a[i].gpus), 1);
			ASSERT(a[i].gpus < 1u << 8);
			ASSERT_EQ(a[i].repair_s, 3 * 86400);
		} else {
			ASSERT_EQ(a[i].repair_s, v[i].repair_s);
		}
	}
	ASSERT(picked * 100 > n * 40 && picked * 100 < n * 60);
	/* the same list gives the same view; fraction 0 gives the list */
	ASSERT_OK(fw_failure_gpu_view(v, n, &g, true, &z, &nz));
	ASSERT(nz == n && same_failures(a, z, n));
	free(z);
	g.fraction = 0;
	ASSERT_OK(fw_failure_gpu_view(v, n, &g, true, &z, &nz));
	ASSERT(nz == n && same_failures(v, z, n));
	free(z);
	/* crash entries stay whole-node crashes */
	struct fw_sim_failure crash[] = { { 10, 0, 0, 0, false } };
	g.fraction = 1;
	ASSERT_OK(fw_failure_gpu_view(crash, 1, &g, true, &z, &nz));
	ASSERT(z[0].gpus == 0 && z[0].repair_s == 0);
	free(z);
	g.fraction = 1.5;
	ASSERT_EQ(fw_failure_gpu_view(v, n, &g, true, &z, &nz), FW_EINVAL);
	g = (struct fw_gpu_fault_model){ 0.5, 33, 0 };
	ASSERT_EQ(fw_failure_gpu_view(v, n, &g, true, &z, &nz), FW_EINVAL);
	free(v);
	free(a);
	free(b);
}

/* A GPU failure in an aware replay: after the GPU's repair its probation
 * holds the node suspect, so a 16-GPU gang waits it out; the blind run's
 * gang starts at once.  Both track the GPU's record, not the node's
 * (test_sim.c has the replay side: the node's other GPUs stay in use). */
TEST(gpu_failure_keeps_the_node_then_probation)
{
	struct fw_trace t;
	struct fw_sim_failure f[] = { { 100, 0, 600, 1u << 2, false } }; /* GPU 2 of node 0, back at 700 */
	struct run blind, aware;
	struct fw_health_config c;

	fw_health_config_default(&c);
	ASSERT_OK(gang_both(&t, 1200, 3600, f, 1, &blind, &aware));
	ASSERT_EQ(blind.r.start[0], 1200);
	ASSERT(aware.r.start[0] >= 700 + c.probation_s && aware.r.start[0] < 700 + c.probation_s + 60);
	ASSERT_EQ(aware.k.rec[0].strikes, 0);             /* the node's own record is clean */
	ASSERT_EQ(aware.k.gpu_rec[0 * 32 + 2].strikes, 1);
	ASSERT_EQ(aware.k.gpu_rec[0 * 32 + 2].incidents, 1);
	ASSERT(aware.k.suspect_node_ticks > 0);
	done(&blind);
	done(&aware);
	fw_trace_free(&t);
}

/* A node's repair ends its GPU's failure too, in the tracker as in the
 * replay: GPU 1 fails at 100 (repair due at 10100), node 0 fails at 200
 * and is repaired at 500; from 500 the GPU is on probation, not down. */
TEST(node_repair_ends_its_gpu_failure)
{
	struct fw_trace t;
	struct fw_sim_failure f[] = { { 100, 0, 10000, 1u << 1, false }, { 200, 0, 300, 0, false } };
	struct run x;
	struct fw_health_config c;

	fw_health_config_default(&c);
	memset(&t, 0, sizeof t);
	add_job(&t, "long", 0, 2000, 1);
	ASSERT_OK(replay(&t, f, 2, true, &x));
	ASSERT_EQ(x.k.gpu_rec[0 * 32 + 1].state, FW_HEALTH_SUSPECT);
	ASSERT_EQ(x.k.gpu_rec[0 * 32 + 1].until, 500 + c.probation_s);
	ASSERT_EQ(x.k.ngpu_repairs, 0);
	done(&x);
	fw_trace_free(&t);
}

/* Flaps join the failures: flagged, own stream, the failures unmoved, the
 * flaky nodes at 10 times the rate, sorted. */
TEST(flaps_join_the_failures)
{
	struct fw_failure_model m;
	struct fw_flap_model fl = { 6.5, 600 };
	struct fw_sim_failure *v, *w;
	size_t n, nw;
	bool flaky[512];
	double nf = 0, nn = 0, nfail = 0;

	fw_failure_model_default(&m);
	m.horizon_s = 1000LL * 86400;
	ASSERT_OK(fw_failure_generate(&m, 512, &v, &n, flaky));
	ASSERT_OK(fw_failure_generate(&m, 512, &w, &nw, NULL));
	ASSERT_OK(fw_failure_add_flaps(&m, &fl, 512, flaky, &w, &nw));
	for (size_t i = 0, k = 0; i < nw; i++) {
		if (i)
			ASSERT(w[i - 1].at < w[i].at || (w[i - 1].at == w[i].at && w[i - 1].node <= w[i].node));
		if (!w[i].flap) { /* the failures, in order, unchanged */
			ASSERT(k < n && w[i].at == v[k].at && w[i].node == v[k].node && w[i].repair_s == v[k].repair_s);
			k++;
			nfail++;
			continue;
		}
		ASSERT_EQ(w[i].repair_s, 600);
		ASSERT_EQ(w[i].gpus, 0u);
		if (flaky[w[i].node])
			nf++;
		else
			nn++;
	}
	ASSERT_NEAR(nfail, (double)n, 0);
	/* 486 x 6.5 = 3159 normal, 26 x 65 = 1690 flaky, as for failures */
	ASSERT_NEAR(nn, 3159, 3159 * 0.06);
	ASSERT_NEAR(nf, 1690, 1690 * 0.10);
	fl.down_s = 0;
	ASSERT_EQ(fw_failure_add_flaps(&m, &fl, 512, flaky, &w, &nw), FW_EINVAL);
	fl.down_s = 600;
	fl.rate_per_1000 = -1;
	ASSERT_EQ(fw_failure_add_flaps(&m, &fl, 512, flaky, &w, &nw), FW_EINVAL);
	free(v);
	free(w);
}

/* A flap is the agent's NVLINK_DOWN: the aware run's node is suspect, not
 * unhealthy, with no repair; two within the flap window hold it for the
 * flap hold.  Both runs lose the node's job to each flap. */
TEST(flap_is_transient_and_damped)
{
	struct fw_trace t;
	struct fw_sim_failure f[] = { { 1000, 0, 600, 0, true }, { 20000, 0, 600, 0, true } };
	struct run blind, aware;
	struct fw_health_config c;

	fw_health_config_default(&c);
	ASSERT_OK(gang_both(&t, 0, 100000, f, 2, &blind, &aware));
	ASSERT_EQ(blind.k.fail_hits[0], 2); /* the gang died at both flaps */
	/* (the run ends after the hold, so the record is healthy again) */
	ASSERT(aware.k.rec[0].state != FW_HEALTH_UNHEALTHY);
	ASSERT(aware.k.suspect_node_ticks > 0);
	ASSERT_EQ(aware.k.rec[0].strikes, 2);
	ASSERT_EQ(aware.k.rec[0].until, 20000 + c.flap_hold_s);
	ASSERT(aware.k.repair_at[0] == INT64_MIN); /* no repair pending */
	/* the aware gang, 16 GPUs, waits out the probation after the first flap */
	ASSERT_EQ(aware.k.fail_hits[0], 1);
	done(&blind);
	done(&aware);
	fw_trace_free(&t);
}

TEST_MAIN(flaps_join_the_failures, flap_is_transient_and_damped, failure_rate_and_flaky_share, failure_list_deterministic_and_seeded,
	  failure_restarts_from_checkpoint, aware_gang_waits_out_probation_blind_does_not,
	  failure_history_and_replay_list, restart_cost_and_flaky_tally, history_lemon_steers_gang,
	  silent_fault_blind_view, silent_fault_crash_loop,
	  silent_faults_change_blind_runs_only, silent_fault_learnt_from_job_failures,
	  gpu_fault_view, gpu_failure_keeps_the_node_then_probation, node_repair_ends_its_gpu_failure,
	  llmfleet_shape)
