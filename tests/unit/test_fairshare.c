/*
 * test_fairshare.c — fair share by water-filling (lib/fairshare.c).
 *
 * Hand-computed cases first (the essay's worked example, deserved, limits,
 * tiers, weights, DRF, a three-level tree, usage), then a reference-model
 * test: 500 random single-resource trees against a naive discrete
 * water-filling written here from the contract, and 500 random
 * three-resource trees checked against the invariants.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "fairway/fairshare.h"
#include "../harness.h"

#define GPU(n) ((int64_t)((n) * 1000)) /* whole GPUs to milli-GPUs */
#define HOUR 3600
#define DAY (24 * HOUR)
#define MAXQ 16

/* ---- fixtures ----------------------------------------------------------- */

static int add_q(struct fw_snapshot *s, const char *name, int parent)
{
	struct fw_queue q;
	fw_queue_init(&q);
	snprintf(q.name, sizeof q.name, "%s", name);
	q.parent = parent;
	return fw_snapshot_add_queue(s, &q);
}

static struct fw_res gpus(double n)
{
	struct fw_res r = fw_res_zero();
	r.v[FW_RES_GPU] = GPU(n);
	return r;
}

static int run(const struct fw_snapshot *s, const struct fw_res *dem,
	       struct fw_res cap, struct fw_share *out)
{
	struct fw_arena a;
	int rc;
	fw_arena_init(&a, 0);
	rc = fw_fairshare_compute(s, dem, cap, &a, out);
	fw_arena_release(&a);
	return rc;
}

static double fair_gpus(const struct fw_share *o)
{
	return o->fair[FW_RES_GPU] / 1000.0;
}

/* ---- hand-computed cases ------------------------------------------------ */

/* The example in lib/fairshare.c's essay, number for number. */
TEST(worked_example)
{
	struct fw_snapshot *s = fw_snapshot_new();
	struct fw_res dem[3] = { fw_res_zero(), gpus(12), gpus(12) };
	struct fw_share out[3];
	int org = add_q(s, "org", -1), a = add_q(s, "a", org), b = add_q(s, "b", org);

	s->now = 30 * DAY;
	s->config.usage_half_life_s = 7 * DAY;
	s->config.usage_weight = 1.0;
	s->queues[a].deserved = gpus(4);
	s->queues[b].deserved = gpus(4);
	s->queues[a].usage = 600.0 * HOUR; /* GPU-hours, as GPU-seconds */
	s->queues[a].usage_at = s->now - 7 * DAY;
	s->queues[b].usage = 100.0 * HOUR;
	s->queues[b].usage_at = s->now;
	ASSERT_OK(run(s, dem, gpus(16), out));
	ASSERT_NEAR(out[a].usage, 300.0 * HOUR, 1e-6);
	ASSERT_NEAR(out[org].usage, 400.0 * HOUR, 1e-6);
	ASSERT_NEAR(out[a].weight_eff, 0.70710678, 1e-7);
	ASSERT_NEAR(out[b].weight_eff, 1.41421356, 1e-7);
	ASSERT_NEAR(fair_gpus(&out[org]), 16, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[a]), 4 + 8.0 / 3, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[b]), 4 + 16.0 / 3, 1e-9);
	ASSERT_NEAR(out[org].demand[FW_RES_GPU], GPU(24), 0);
	/* the deserved part and the over-quota weights behind the rest */
	ASSERT_NEAR(out[a].guaranteed[FW_RES_GPU], GPU(4), 1e-6);
	ASSERT_NEAR(out[b].guaranteed[FW_RES_GPU], GPU(4), 1e-6);
	ASSERT_NEAR(out[org].guaranteed[FW_RES_GPU], 0, 0); /* org deserves nothing: all over quota */
	ASSERT_NEAR(out[a].weight, 1, 0);
	ASSERT_NEAR(out[b].weight, 1, 0);

	s->config.usage_weight = 0; /* beta = 0: usage ignored */
	ASSERT_OK(run(s, dem, gpus(16), out));
	ASSERT_NEAR(fair_gpus(&out[a]), 8, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[b]), 8, 1e-9);
	fw_snapshot_free(s);
}

/* The deserved part: capped by demand, and scaled down with the siblings'
 * when their deserved shares exceed the parent's. */
TEST(guaranteed_part_is_deserved_capped_by_demand_and_parent)
{
	struct fw_snapshot *s = fw_snapshot_new();
	struct fw_res dem[3] = { fw_res_zero(), gpus(12), gpus(2) };
	struct fw_share out[3];
	int org = add_q(s, "org", -1), a = add_q(s, "a", org), b = add_q(s, "b", org);

	s->queues[org].deserved = gpus(16);
	s->queues[a].deserved = gpus(8);
	s->queues[b].deserved = gpus(8);
	ASSERT_OK(run(s, dem, gpus(16), out));
	ASSERT_NEAR(out[b].guaranteed[FW_RES_GPU], GPU(2), 1e-6); /* its demand */
	ASSERT_NEAR(fair_gpus(&out[b]), 2, 1e-9);
	ASSERT_NEAR(out[a].guaranteed[FW_RES_GPU], GPU(8), 1e-6);
	ASSERT_NEAR(fair_gpus(&out[a]), 12, 1e-9);                  /* 8 + 4 over quota */
	ASSERT_NEAR(out[org].guaranteed[FW_RES_GPU], GPU(14), 1e-6); /* its demand, under 16 */

	dem[2] = gpus(12); /* 8 + 8 deserved in a parent of 8: halved */
	ASSERT_OK(run(s, dem, gpus(8), out));
	ASSERT_NEAR(out[a].guaranteed[FW_RES_GPU], GPU(4), 1e-6);
	ASSERT_NEAR(out[b].guaranteed[FW_RES_GPU], GPU(4), 1e-6);
	ASSERT_NEAR(fair_gpus(&out[a]), 4, 1e-9);
	for (int q = 0; q < 3; q++)
		ASSERT(out[q].guaranteed[FW_RES_GPU] <= out[q].fair[FW_RES_GPU] + 1e-6);
	fw_snapshot_free(s);
}

TEST(half_life_decay)
{
	ASSERT_NEAR(fw_usage_decay(1000, 0, 3600, 3600), 500, 1e-9);
	ASSERT_NEAR(fw_usage_decay(1000, 0, 7200, 3600), 250, 1e-9);
	ASSERT_NEAR(fw_usage_decay(1000, 100, 100 + 5400, 3600),
		    1000 * pow(2, -1.5), 1e-9);
	ASSERT_NEAR(fw_usage_decay(1000, 0, 7 * DAY, 7 * DAY), 500, 1e-9);
	ASSERT_NEAR(fw_usage_decay(1000, 0, 3600, 0), 1000, 0);   /* h = 0 */
	ASSERT_NEAR(fw_usage_decay(1000, 0, 3600, -5), 1000, 0);  /* h < 0 */
	ASSERT_NEAR(fw_usage_decay(1000, 500, 500, 60), 1000, 0); /* now = at */
	ASSERT_NEAR(fw_usage_decay(1000, 900, 500, 60), 1000, 0); /* now < at */
	/* decaying in two hops equals decaying once (memorylessness) */
	ASSERT_NEAR(fw_usage_decay(fw_usage_decay(777, 0, 1000, 3000), 1000,
				   4000, 3000),
		    fw_usage_decay(777, 0, 4000, 3000), 1e-9);
}

/* fw_usage_held: the exact decayed integral, so cutting a stretch
 * anywhere changes nothing; undecayed when h <= 0; nothing for no GPUs
 * or an empty stretch. */
TEST(held_usage_is_one_integral_however_cut)
{
	double h = 7 * DAY;

	/* constant g from 0 to T, as of T: g h / ln 2 (1 - 2^-T/h) */
	ASSERT_NEAR(fw_usage_held(8, 0, 3600, 3600, 3600), 8 * 3600 / log(2) * 0.5, 1e-6);
	/* a to c decayed to b, plus c to b, is a to b */
	for (fw_time c = 1; c < 100000; c += 9973)
		ASSERT_NEAR(fw_usage_decay(fw_usage_held(3, 0, c, c, h), c, 100000, h) +
				    fw_usage_held(3, c, 100000, 100000, h),
			    fw_usage_held(3, 0, 100000, 100000, h), 1e-9);
	/* held to `to`, as of a later now: decayed from to */
	ASSERT_NEAR(fw_usage_held(2, 100, 200, 5000, h), fw_usage_decay(fw_usage_held(2, 100, 200, 200, h), 200, 5000, h),
		    1e-12);
	/* one second under a half-life of days: one GPU-second, no
	 * cancellation (1 - 2^-1/h would lose half its digits) */
	ASSERT_NEAR(fw_usage_held(1, 0, 1, 1, h), 1, 1e-6);
	ASSERT(fw_usage_held(1, 0, 1, 1, h) < 1);
	ASSERT_NEAR(fw_usage_held(4, 10, 70, 1000, 0), 240, 0);  /* h = 0 */
	ASSERT_NEAR(fw_usage_held(4, 10, 70, 1000, -1), 240, 0); /* h < 0 */
	ASSERT_NEAR(fw_usage_held(0, 10, 70, 70, h), 0, 0);
	ASSERT_NEAR(fw_usage_held(-2, 10, 70, 70, h), 0, 0);
	ASSERT_NEAR(fw_usage_held(4, 70, 70, 70, h), 0, 0);
	ASSERT_NEAR(fw_usage_held(4, 80, 70, 90, h), 0, 0);
}

TEST(deserved_guaranteed)
{
	struct fw_snapshot *s = fw_snapshot_new();
	struct fw_res dem[2] = { gpus(10), gpus(100) };
	struct fw_share out[2];
	int a = add_q(s, "a", -1), b = add_q(s, "b", -1);

	/* b's weight is huge, but a's deserved comes first */
	s->queues[a].deserved = gpus(10);
	s->queues[b].over_quota_weight[FW_RES_GPU] = 100;
	ASSERT_OK(run(s, dem, gpus(16), out));
	ASSERT_NEAR(fair_gpus(&out[a]), 10, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[b]), 6, 1e-9);

	/* a heavy user keeps its deserved */
	dem[a] = gpus(16);
	s->queues[a].usage = 1e9;
	ASSERT_OK(run(s, dem, gpus(16), out));
	ASSERT(fair_gpus(&out[a]) >= 10 - 1e-9);

	/* scarce: deserved 8 + 8 on 8 GPUs; a wants only 2, b the rest */
	s->queues[a].usage = 0;
	s->queues[a].deserved = gpus(8);
	s->queues[b].deserved = gpus(8);
	dem[a] = gpus(2);
	dem[b] = gpus(16);
	ASSERT_OK(run(s, dem, gpus(8), out));
	ASSERT_NEAR(fair_gpus(&out[a]), 2, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[b]), 6, 1e-9);

	/* scarce, both hungry: split in proportion to deserved, 4 : 12 */
	s->queues[a].deserved = gpus(4);
	s->queues[b].deserved = gpus(12);
	dem[a] = gpus(16);
	ASSERT_OK(run(s, dem, gpus(8), out));
	ASSERT_NEAR(fair_gpus(&out[a]), 2, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[b]), 6, 1e-9);
	fw_snapshot_free(s);
}

TEST(limits_never_exceeded)
{
	struct fw_snapshot *s = fw_snapshot_new();
	struct fw_res dem[6];
	struct fw_share out[6];
	int org = add_q(s, "org", -1);
	int l = add_q(s, "l", org), m = add_q(s, "m", org);
	int dept = add_q(s, "dept", org);
	int t1 = add_q(s, "t1", dept), t2 = add_q(s, "t2", dept);

	dem[org] = dem[dept] = fw_res_zero();
	dem[l] = dem[m] = gpus(20);
	dem[t1] = dem[t2] = gpus(10);
	s->queues[l].limit = gpus(5);
	s->queues[l].deserved = gpus(10); /* deserved above the limit */
	s->queues[l].over_quota_weight[FW_RES_GPU] = 10;
	s->queues[dept].limit = gpus(6);
	ASSERT_OK(run(s, dem, gpus(64), out));
	ASSERT_NEAR(fair_gpus(&out[l]), 5, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[m]), 20, 1e-9);
	ASSERT_NEAR(out[dept].demand[FW_RES_GPU], GPU(6), 0);
	ASSERT_NEAR(fair_gpus(&out[dept]), 6, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[t1]), 3, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[t2]), 3, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[org]), 31, 1e-9);
	fw_snapshot_free(s);
}

TEST(priority_tiers)
{
	struct fw_snapshot *s = fw_snapshot_new();
	struct fw_res dem[4] = { gpus(12), gpus(12), gpus(10), gpus(10) };
	struct fw_share out[4];
	int h = add_q(s, "h", -1), l = add_q(s, "l", -1);

	s->queues[h].priority = 10;
	s->queues[l].over_quota_weight[FW_RES_GPU] = 50; /* weight can't beat a tier */
	ASSERT_OK(run(s, dem, gpus(16), out));
	ASSERT_NEAR(fair_gpus(&out[h]), 12, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[l]), 4, 1e-9);

	s->queues[l].deserved = gpus(6); /* deserved before any tier */
	ASSERT_OK(run(s, dem, gpus(16), out));
	ASSERT_NEAR(fair_gpus(&out[h]), 10, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[l]), 6, 1e-9);

	/* three tiers; the top tier has two members sharing by weight */
	int h2 = add_q(s, "h2", -1), mid = add_q(s, "mid", -1);
	s->queues[l].deserved = fw_res_zero();
	s->queues[h2].priority = 10;
	s->queues[mid].priority = 5;
	dem[h] = gpus(6);
	dem[h2] = gpus(10);
	dem[mid] = gpus(3);
	dem[l] = gpus(10);
	ASSERT_OK(run(s, dem, gpus(16), out));
	ASSERT_NEAR(fair_gpus(&out[h]), 6, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[h2]), 10, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[mid]), 0, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[l]), 0, 1e-9);
	ASSERT_OK(run(s, dem, gpus(24), out));
	ASSERT_NEAR(fair_gpus(&out[mid]), 3, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[l]), 5, 1e-9);
	fw_snapshot_free(s);
}

TEST(weights_proportional)
{
	struct fw_snapshot *s = fw_snapshot_new();
	struct fw_res dem[3] = { gpus(100), gpus(100), gpus(100) };
	struct fw_share out[3];
	int a = add_q(s, "a", -1), b = add_q(s, "b", -1);

	s->queues[b].over_quota_weight[FW_RES_GPU] = 3;
	ASSERT_OK(run(s, dem, gpus(16), out));
	ASSERT_NEAR(fair_gpus(&out[a]), 4, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[b]), 12, 1e-9);
	ASSERT_NEAR(out[b].weight_eff, 3, 1e-12);

	/* 1 : 1 : 2 where the first wants only 2: the rest splits 1 : 2 */
	int c = add_q(s, "c", -1);
	s->queues[b].over_quota_weight[FW_RES_GPU] = 1;
	s->queues[c].over_quota_weight[FW_RES_GPU] = 2;
	dem[a] = gpus(2);
	ASSERT_OK(run(s, dem, gpus(16), out));
	ASSERT_NEAR(fair_gpus(&out[a]), 2, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[b]), 14.0 / 3, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[c]), 28.0 / 3, 1e-9);

	/* weight 0: only what the weighted ones leave */
	s->queues[a].over_quota_weight[FW_RES_GPU] = 0;
	dem[a] = gpus(100);
	dem[b] = gpus(4);
	dem[c] = gpus(6);
	ASSERT_OK(run(s, dem, gpus(16), out));
	ASSERT_NEAR(fair_gpus(&out[a]), 6, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[b]), 4, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[c]), 6, 1e-9);
	ASSERT_NEAR(out[a].weight_eff, 0, 0);
	dem[b] = gpus(100);
	ASSERT_OK(run(s, dem, gpus(16), out));
	ASSERT_NEAR(fair_gpus(&out[a]), 0, 1e-9);
	fw_snapshot_free(s);
}

/* A GPU-heavy and a CPU-heavy queue, both with a CPU quota of 8 cores:
 * CPU is divided with the GPUs among them.  Phase 1 gives each its 8
 * cores; then DRF equalises the dominant shares of what they still want
 * (g: 16 GPUs, 24 cores, dominant GPU 1; c: 8 GPUs, 120 cores, dominant
 * CPU 120/128), and each over-quota part keeps that demand's shape. */
TEST(drf_consistency)
{
	struct fw_snapshot *s = fw_snapshot_new();
	struct fw_res dem[2], cap = fw_res_zero();
	struct fw_share out[2];
	int g = add_q(s, "gpu-heavy", -1), c = add_q(s, "cpu-heavy", -1);

	cap.v[FW_RES_GPU] = GPU(16);
	cap.v[FW_RES_CPU] = 128000;
	cap.v[FW_RES_MEM] = 1 << 20;
	dem[g] = gpus(16);
	dem[g].v[FW_RES_CPU] = 32000;
	dem[c] = gpus(8);
	dem[c].v[FW_RES_CPU] = 128000;
	s->queues[g].deserved.v[FW_RES_CPU] = 8000;
	s->queues[c].deserved.v[FW_RES_CPU] = 8000;
	ASSERT_OK(run(s, dem, cap, out));
	ASSERT(out[c].limited_by == FW_RES_GPU && out[g].limited_by == FW_RES_GPU);
	/* dominant shares grow together: g's 16t GPUs, c's 8t/(15/16);
	 * GPUs run out at t = 15/23 */
	ASSERT_NEAR(fair_gpus(&out[g]), 240.0 / 23, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[c]), 128.0 / 23, 1e-9);
	ASSERT_NEAR(out[g].fair[FW_RES_CPU], 8000 + 24000 * 15.0 / 23, 1e-6);
	ASSERT_NEAR(out[c].fair[FW_RES_CPU], 8000 + 120000 * 16.0 / 23, 1e-6);
	ASSERT_NEAR(out[g].guaranteed[FW_RES_CPU], 8000, 1e-6);
	/* shape: the over-quota part is a multiple of the remaining demand */
	ASSERT_NEAR((out[g].fair[FW_RES_CPU] - 8000) / out[g].fair[FW_RES_GPU], 1.5, 1e-12);
	ASSERT_NEAR((out[c].fair[FW_RES_CPU] - 8000) / out[c].fair[FW_RES_GPU], 15, 1e-12);

	/* the CPU-heavy queue competes with its CPU weight: 2x speed, and CPU
	 * runs out first, at t = 112/280 */
	s->queues[c].over_quota_weight[FW_RES_CPU] = 2;
	ASSERT_OK(run(s, dem, cap, out));
	ASSERT_NEAR(out[c].weight_eff, 2, 1e-12);
	ASSERT_NEAR(fair_gpus(&out[g]), 6.4, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[c]), 512.0 / 75, 1e-9);
	ASSERT_NEAR(out[g].fair[FW_RES_CPU] + out[c].fair[FW_RES_CPU], 128000, 1e-6);
	ASSERT(out[c].limited_by == FW_RES_CPU && out[g].limited_by == FW_RES_CPU);
	fw_snapshot_free(s);
}

/* One sibling sets a CPU quota and the others set none: CPU is divided
 * only among the quota holders.  The others are not held back in CPU by
 * their sibling's quota: their GPUs go by GPU weight alone, and their
 * share of CPU is what the quota holders leave, scaled to their demand.
 * (They were capped by the CPU left after phase 1: b at 3.56 GPUs and
 * c at 5.33 instead of 8 and 8.) */
TEST(sibling_cpu_quota_never_holds_back_unquoted)
{
	struct fw_snapshot *s = fw_snapshot_new();
	struct fw_res dem[3], cap = fw_res_zero();
	struct fw_share out[3];
	int a = add_q(s, "a", -1), b = add_q(s, "b", -1), c = add_q(s, "c", -1);

	cap.v[FW_RES_GPU] = GPU(16);
	cap.v[FW_RES_CPU] = 64000;
	s->queues[a].deserved.v[FW_RES_CPU] = 32000;
	dem[a] = fw_res_zero();
	dem[a].v[FW_RES_CPU] = 32000; /* CPU only */
	dem[b] = gpus(8);
	dem[b].v[FW_RES_CPU] = 48000;
	dem[c] = gpus(8);
	dem[c].v[FW_RES_CPU] = 16000;
	ASSERT_OK(run(s, dem, cap, out));
	ASSERT_NEAR(out[a].fair[FW_RES_CPU], 32000, 1e-6);
	ASSERT_NEAR(out[a].guaranteed[FW_RES_CPU], 32000, 1e-6);
	ASSERT_NEAR(fair_gpus(&out[b]), 8, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[c]), 8, 1e-9);
	ASSERT_NEAR(out[b].fair[FW_RES_CPU], 24000, 1e-6); /* 32 left x 48/64 */
	ASSERT_NEAR(out[c].fair[FW_RES_CPU], 8000, 1e-6);
	ASSERT(out[a].limited_by == -1 && out[b].limited_by == -1 && out[c].limited_by == -1);

	/* the quota holder wants more than its quota: its over-quota CPU
	 * grows with the GPUs it asks, b's and c's GPUs still do not wait */
	dem[a] = gpus(2);
	dem[a].v[FW_RES_CPU] = 48000;
	ASSERT_OK(run(s, dem, cap, out));
	ASSERT_NEAR(fair_gpus(&out[a]) + fair_gpus(&out[b]) + fair_gpus(&out[c]), 16, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[a]), 2, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[b]), 7, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[c]), 7, 1e-9);
	ASSERT_NEAR(out[a].fair[FW_RES_CPU], 48000, 1e-6);
	ASSERT_NEAR(out[b].fair[FW_RES_CPU] + out[c].fair[FW_RES_CPU], 16000, 1e-6);
	ASSERT_NEAR(out[b].fair[FW_RES_CPU] / out[c].fair[FW_RES_CPU], 3, 1e-9);
	ASSERT(out[b].limited_by == FW_RES_GPU && out[c].limited_by == FW_RES_GPU);
	fw_snapshot_free(s);
}

/* The same queues with no CPU quota anywhere: CPU is free.  The GPUs go
 * by GPU weight alone (cpu-heavy is served its 8, gpu-heavy the rest)
 * and each CPU share is the demand, scaled to the 128 CPUs. */
TEST(free_resource_is_not_divided)
{
	struct fw_snapshot *s = fw_snapshot_new();
	struct fw_res dem[2], cap = fw_res_zero();
	struct fw_share out[2];
	int g = add_q(s, "gpu-heavy", -1), c = add_q(s, "cpu-heavy", -1);

	cap.v[FW_RES_GPU] = GPU(16);
	cap.v[FW_RES_CPU] = 128000;
	dem[g] = gpus(16);
	dem[g].v[FW_RES_CPU] = 32000;
	dem[c] = gpus(8);
	dem[c].v[FW_RES_CPU] = 128000;
	ASSERT_OK(run(s, dem, cap, out));
	ASSERT_NEAR(fair_gpus(&out[g]), 8, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[c]), 8, 1e-9);
	ASSERT_NEAR(out[g].fair[FW_RES_CPU], 25600, 1e-6); /* x 128/160 */
	ASSERT_NEAR(out[c].fair[FW_RES_CPU], 102400, 1e-6);
	ASSERT(out[g].limited_by == FW_RES_GPU && out[c].limited_by == -1);
	fw_snapshot_free(s);
}

/* The QA repro (tests/scenario/fairshare_free_cpu.yaml): org deserves
 * 24 of 32 GPUs and gets them all in phase 1, with tasks that ask CPU
 * and no CPU quota anywhere.  Its child a must still take the 4 GPUs
 * its sibling b leaves: CPU nobody guards never caps a GPU share (a
 * was left at 16, as if org had no CPU to hand down). */
TEST(unquoted_cpu_never_strands_gpus)
{
	struct fw_snapshot *s = fw_snapshot_new();
	struct fw_res dem[4], cap = fw_res_zero();
	struct fw_share out[4];
	int org = add_q(s, "org", -1), other = add_q(s, "other", -1);
	int a = add_q(s, "a", org), b = add_q(s, "b", org);

	cap.v[FW_RES_GPU] = GPU(32);
	cap.v[FW_RES_CPU] = 256000;
	s->queues[org].deserved = gpus(24);
	s->queues[other].deserved = gpus(8);
	s->queues[a].deserved = gpus(16);
	s->queues[b].deserved = gpus(8);
	dem[org] = fw_res_zero();
	dem[other] = gpus(8);
	dem[other].v[FW_RES_CPU] = 4000;
	dem[a] = gpus(24);
	dem[a].v[FW_RES_CPU] = 24000;
	dem[b] = gpus(4);
	dem[b].v[FW_RES_CPU] = 4000;
	ASSERT_OK(run(s, dem, cap, out));
	ASSERT_NEAR(out[org].fair[FW_RES_CPU], 28000, 1e-6);
	ASSERT_NEAR(fair_gpus(&out[a]), 20, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[b]), 4, 1e-9);
	ASSERT_NEAR(out[a].fair[FW_RES_CPU], 24000, 1e-6);
	ASSERT(out[a].limited_by == FW_RES_GPU && out[org].limited_by == FW_RES_GPU && out[b].limited_by == -1);
	/* a CPU quota on org's sibling divides CPU between the two, but org
	 * sets none: it is not held back in CPU (once, phase 1 gave it none
	 * and its unmet GPUs stopped it before phase 2 handed it any), so a
	 * still takes b's 4 GPUs */
	s->queues[other].deserved.v[FW_RES_CPU] = 1000;
	ASSERT_OK(run(s, dem, cap, out));
	ASSERT(out[org].limited_by == FW_RES_GPU);
	ASSERT_NEAR(out[other].fair[FW_RES_CPU], 4000, 1e-6);
	ASSERT_NEAR(out[org].fair[FW_RES_CPU], 28000, 1e-6);
	ASSERT_NEAR(fair_gpus(&out[a]), 20, 1e-9);
	ASSERT_NEAR(out[a].fair[FW_RES_CPU], 24000, 1e-6);
	fw_snapshot_free(s);
}

TEST(three_level_tree)
{
	struct fw_snapshot *s = fw_snapshot_new();
	struct fw_res dem[7];
	struct fw_share out[7];
	int org = add_q(s, "org", -1);
	int d1 = add_q(s, "d1", org), d2 = add_q(s, "d2", org);
	int t1 = add_q(s, "t1", d1), t2 = add_q(s, "t2", d1);
	int t3 = add_q(s, "t3", d2), t4 = add_q(s, "t4", d2);

	for (int q = 0; q < 7; q++)
		dem[q] = q >= t1 ? gpus(20) : fw_res_zero();
	s->queues[d1].deserved = gpus(8);
	s->queues[d2].limit = gpus(12);
	s->queues[t1].over_quota_weight[FW_RES_GPU] = 3;
	s->queues[t3].deserved = gpus(4);
	ASSERT_OK(run(s, dem, gpus(32), out));
	ASSERT_NEAR(out[org].demand[FW_RES_GPU], GPU(52), 0);
	ASSERT_NEAR(fair_gpus(&out[org]), 32, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[d1]), 20, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[d2]), 12, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[t1]), 15, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[t2]), 5, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[t3]), 8, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[t4]), 4, 1e-9);

	/* an inner queue's own demand is served from what its children leave */
	dem[d1] = gpus(4);
	dem[t1] = dem[t2] = gpus(1);
	ASSERT_OK(run(s, dem, gpus(32), out));
	ASSERT_NEAR(out[d1].demand[FW_RES_GPU], GPU(6), 0);
	ASSERT_NEAR(fair_gpus(&out[d1]), 6, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[t1]) + fair_gpus(&out[t2]), 2, 1e-9);
	fw_snapshot_free(s);
}

TEST(decayed_usage_lowers_over_user)
{
	struct fw_snapshot *s = fw_snapshot_new();
	struct fw_res dem[2] = { gpus(16), gpus(16) };
	struct fw_share out[2];
	int x = add_q(s, "x", -1), y = add_q(s, "y", -1);

	s->now = 1000;
	s->queues[x].usage = 1000;
	s->queues[x].usage_at = 1000;
	ASSERT_OK(run(s, dem, gpus(16), out));
	ASSERT(out[x].fair[FW_RES_GPU] < out[y].fair[FW_RES_GPU]);
	ASSERT_NEAR(out[x].weight_eff, 0.5, 1e-12); /* u/e = 2: 2^-1 */
	ASSERT_NEAR(out[y].weight_eff, 2, 1e-12);   /* u/e = 0: 2^+1 */
	ASSERT_NEAR(fair_gpus(&out[x]), 3.2, 1e-9);
	ASSERT_NEAR(fair_gpus(&out[y]), 12.8, 1e-9);

	/* beta large: the exponent is clamped to [-4, 4] */
	s->config.usage_weight = 10;
	ASSERT_OK(run(s, dem, gpus(16), out));
	ASSERT_NEAR(out[x].weight_eff, 1.0 / 16, 1e-12);
	ASSERT_NEAR(out[y].weight_eff, 16, 1e-12);
	ASSERT_NEAR(fair_gpus(&out[x]), 16.0 / 257, 1e-9);

	/* old usage fades: 10 half-lives later both are nearly even, and the
	 * stored value is what decays (only ratios matter) */
	s->config.usage_weight = 1;
	s->queues[y].usage = 1;
	s->queues[y].usage_at = 1000;
	s->queues[x].usage_at = 1000 - 10 * (int64_t)s->config.usage_half_life_s;
	ASSERT_OK(run(s, dem, gpus(16), out));
	ASSERT_NEAR(out[x].usage, 1000.0 / 1024, 1e-9);
	{
		double ux = (1000.0 / 1024) / (1000.0 / 1024 + 1);
		double wx = pow(2, -(ux / 0.5 - 1));
		double wy = pow(2, -((1 - ux) / 0.5 - 1));
		ASSERT_NEAR(fair_gpus(&out[x]), 16 * wx / (wx + wy), 1e-9);
		ASSERT_NEAR(fair_gpus(&out[x]), fair_gpus(&out[y]), 0.2);
	}
	fw_snapshot_free(s);
}

TEST(bad_input)
{
	struct fw_snapshot *s = fw_snapshot_new();
	struct fw_res dem[2] = { gpus(1), gpus(1) };
	struct fw_share out[2];

	ASSERT_OK(run(s, dem, gpus(1), out)); /* no queues */
	add_q(s, "a", -1);
	add_q(s, "b", 0);
	s->queues[1].parent = 7;
	ASSERT_EQ(run(s, dem, gpus(1), out), FW_EINVAL);
	s->queues[0].parent = 1; /* a <-> b */
	s->queues[1].parent = 0;
	ASSERT_EQ(run(s, dem, gpus(1), out), FW_ELOOP);
	ASSERT_EQ(run(NULL, dem, gpus(1), out), FW_EINVAL);
	fw_snapshot_free(s);
}

/* ---- random trees ------------------------------------------------------- */

static uint64_t rng_state;

static uint64_t rnd(void) /* xorshift64* */
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1Dull;
}

static int64_t rnd_in(int64_t lo, int64_t hi) /* inclusive */
{
	return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

/* A random tree of up to MAXQ queues, at most three levels.  nres = 1:
 * GPUs only; 3: every resource. */
static void random_tree(struct fw_snapshot *s, struct fw_res *dem,
			struct fw_res *cap, int nres)
{
	int n = (int)rnd_in(1, MAXQ);
	int depth[MAXQ];

	s->nqueues = 0;
	s->now = 100 * DAY;
	s->config.usage_weight = (double)rnd_in(0, 4) / 2;
	for (int q = 0; q < n; q++) {
		int p = q == 0 || rnd() % 4 == 0 ? -1 : (int)rnd_in(0, q - 1);
		struct fw_queue *qq;
		if (p >= 0 && depth[p] >= 2)
			p = -1;
		depth[q] = p < 0 ? 0 : depth[p] + 1;
		add_q(s, "q", p);
		qq = &s->queues[q];
		qq->priority = (int32_t)rnd_in(0, 2);
		if (rnd() % 2) {
			qq->usage = (double)rnd_in(0, 1000000);
			qq->usage_at = s->now - rnd_in(0, 14 * DAY);
		}
		dem[q] = fw_res_zero();
		for (int r = 0; r < nres; r++) {
			int64_t scale = r == FW_RES_GPU ? 1000 : 4000;
			dem[q].v[r] = rnd() % 5 == 0 ? 0 : rnd_in(0, 32 * scale);
			qq->deserved.v[r] = rnd() % 3 == 0 ? 0 : rnd_in(0, 16 * scale);
			if (rnd() % 4 == 0)
				qq->limit.v[r] = rnd_in(0, 24 * scale);
			qq->over_quota_weight[r] =
				rnd() % 8 == 0 ? 0 : (double)rnd_in(1, 8) / 2;
		}
	}
	for (int q = 0; q < n; q++) /* inner queues mostly have no own demand */
		if (!fw_queue_is_leaf(s, q) && rnd() % 5)
			dem[q] = fw_res_zero();
	*cap = fw_res_zero();
	for (int r = 0; r < nres; r++)
		cap->v[r] = rnd() % 10 == 0 ? 0 : rnd_in(1, 64 * 1000);
}

/* Invariants of any output: 0 <= fair <= demand <= limit; children never
 * share more than their parent has; deserved (when it fits) is honoured;
 * with one resource, nothing is left idle that someone asks for. */
static void check_level(const struct fw_snapshot *s, const struct fw_share *out,
			int p, const double *a, int single)
{
	double sum[FW_RES_COUNT] = { 0 }, want[FW_RES_COUNT] = { 0 };
	double dsum[FW_RES_COUNT] = { 0 };

	for (int q = 0; q < s->nqueues; q++) {
		const struct fw_queue *qq = &s->queues[q];
		if (qq->parent != p)
			continue;
		for (int r = 0; r < FW_RES_COUNT; r++) {
			double f = out[q].fair[r], d = out[q].demand[r];
			ASSERT(f >= 0);
			ASSERT(f <= d);
			ASSERT(qq->limit.v[r] < 0 || d <= (double)qq->limit.v[r]);
			sum[r] += f;
			dsum[r] += d;
			want[r] += fmin(d, (double)qq->deserved.v[r]);
		}
	}
	for (int r = 0; r < FW_RES_COUNT; r++) {
		double eps = 1e-6 * fmax(a[r], 1);
		ASSERT(sum[r] <= a[r] + eps);
		if (single && r == FW_RES_GPU)
			ASSERT_NEAR(sum[r], fmin(a[r], dsum[r]), eps);
		for (int q = 0; q < s->nqueues && want[r] <= a[r]; q++) {
			const struct fw_queue *qq = &s->queues[q];
			if (qq->parent == p)
				ASSERT(out[q].fair[r] >= fmin(out[q].demand[r],
				       (double)qq->deserved.v[r]) - eps);
		}
	}
}

static void check_invariants(const struct fw_snapshot *s,
			     const struct fw_share *out, struct fw_res cap,
			     int single)
{
	double a[FW_RES_COUNT];

	for (int r = 0; r < FW_RES_COUNT; r++)
		a[r] = (double)cap.v[r];
	check_level(s, out, -1, a, single);
	for (int q = 0; q < s->nqueues; q++) {
		check_level(s, out, q, out[q].fair, single);
		for (int r = 0; r < FW_RES_COUNT; r++) { /* the deserved part */
			ASSERT(out[q].guaranteed[r] >= 0);
			ASSERT(out[q].guaranteed[r] <= out[q].fair[r] + 1e-9 * fmax(1, out[q].fair[r]));
			ASSERT(out[q].guaranteed[r] <= (double)s->queues[q].deserved.v[r] + 1e-6);
		}
		ASSERT(out[q].weight_eff >= 0 && out[q].weight >= 0);
	}
}

/*
 * The reference model: GPUs only, straight from the contract, by handing
 * out small increments one at a time.  Phase 1 gives the next increment to
 * the child furthest below its deserved (lowest got/deserved); phase 2, tier
 * by tier, to the child with the lowest extra/weight (weight-0 children
 * after the tier's weighted ones, equally).
 */
struct ref {
	const struct fw_snapshot *s;
	const struct fw_res *dem;
	double d[MAXQ], u[MAXQ], fair[MAXQ], weff[MAXQ];
	double got[MAXQ], base[MAXQ], step, left;
};

static double ref_rollup(struct ref *m, int q)
{
	const struct fw_queue *qq = &m->s->queues[q];
	double d = (double)m->dem[q].v[FW_RES_GPU];

	m->u[q] = fw_usage_decay(qq->usage, qq->usage_at, m->s->now,
				 m->s->config.usage_half_life_s);
	for (int c = 0; c < m->s->nqueues; c++) {
		if (m->s->queues[c].parent == q) {
			d += ref_rollup(m, c);
			m->u[q] += m->u[c];
		}
	}
	if (qq->limit.v[FW_RES_GPU] >= 0)
		d = fmin(d, (double)qq->limit.v[FW_RES_GPU]);
	return m->d[q] = d;
}

static void ref_weights(struct ref *m, const int *kid, int k)
{
	double wsum = 0, usum = 0, beta = m->s->config.usage_weight;

	for (int i = 0; i < k; i++) {
		wsum += m->s->queues[kid[i]].over_quota_weight[FW_RES_GPU];
		usum += m->u[kid[i]];
	}
	for (int i = 0; i < k; i++) {
		double w = m->s->queues[kid[i]].over_quota_weight[FW_RES_GPU];
		double x = 0;
		if (beta != 0 && usum > 0 && w > 0)
			x = fmax(-4, fmin(4, -beta * ((m->u[kid[i]] / usum) /
						       (w / wsum) - 1)));
		m->weff[kid[i]] = w * pow(2, x);
	}
}

/* One increment to the best eligible child; 0 when there is none. */
static int ref_give(struct ref *m, const int *kid, int k, int phase,
		    int32_t tier, int zero)
{
	int best = -1;
	double bv = 0;

	for (int i = 0; i < k; i++) {
		int q = kid[i];
		const struct fw_queue *qq = &m->s->queues[q];
		double cap = m->d[q], v;
		if (phase == 2 && (qq->priority != tier || (m->weff[q] > 0) == zero))
			continue;
		if (phase == 1)
			cap = fmin(cap, (double)qq->deserved.v[FW_RES_GPU]);
		if (m->got[q] >= cap - 1e-9)
			continue;
		if (phase == 1)
			v = m->got[q] / (double)qq->deserved.v[FW_RES_GPU];
		else
			v = (m->got[q] - m->base[q]) / (zero ? 1 : m->weff[q]);
		if (best < 0 || v < bv) {
			best = i;
			bv = v;
		}
	}
	if (best < 0 || m->left <= 1e-9)
		return 0;
	{
		int q = kid[best];
		double cap = phase == 1 ? fmin(m->d[q],
			(double)m->s->queues[q].deserved.v[FW_RES_GPU]) : m->d[q];
		double x = fmin(m->step, fmin(cap - m->got[q], m->left));
		m->got[q] += x;
		m->left -= x;
	}
	return 1;
}

static void ref_split(struct ref *m, int p, double a)
{
	int kid[MAXQ], k = 0;
	int32_t tier = INT32_MAX;

	for (int q = 0; q < m->s->nqueues; q++)
		if (m->s->queues[q].parent == p)
			kid[k++] = q;
	for (int i = 0; i < k; i++)
		m->got[kid[i]] = 0;
	m->step = a / 4000;
	m->left = a;
	while (a > 0 && ref_give(m, kid, k, 1, 0, 0))
		;
	ref_weights(m, kid, k);
	for (int i = 0; i < k; i++)
		m->base[kid[i]] = m->got[kid[i]];
	for (;;) { /* tiers, highest first */
		int32_t next = INT32_MIN;
		for (int i = 0; i < k; i++) {
			int32_t pr = m->s->queues[kid[i]].priority;
			if (pr < tier && pr > next)
				next = pr;
		}
		if (next == INT32_MIN || a <= 0)
			break;
		tier = next;
		while (ref_give(m, kid, k, 2, tier, 0))
			;
		while (ref_give(m, kid, k, 2, tier, 1))
			;
	}
	for (int i = 0; i < k; i++)
		m->fair[kid[i]] = m->got[kid[i]];
	for (int i = 0; i < k; i++)
		ref_split(m, kid[i], m->fair[kid[i]]);
}

TEST(random_vs_reference)
{
	struct fw_snapshot *s = fw_snapshot_new();
	struct fw_res dem[MAXQ], cap;
	struct fw_share out[MAXQ], again[MAXQ];
	double worst = 0;

	rng_state = 0x9E3779B97F4A7C15ull;
	for (int iter = 0; iter < 500; iter++) {
		struct ref m = { .s = s, .dem = dem };
		double tol;
		random_tree(s, dem, &cap, 1);
		ASSERT_OK(run(s, dem, cap, out));
		check_invariants(s, out, cap, 1);
		ASSERT_OK(run(s, dem, cap, again));
		ASSERT(memcmp(out, again, sizeof out[0] * (size_t)s->nqueues) == 0);
		for (int q = 0; q < s->nqueues; q++)
			if (s->queues[q].parent < 0)
				ref_rollup(&m, q);
		ref_split(&m, -1, (double)cap.v[FW_RES_GPU]);
		tol = (double)cap.v[FW_RES_GPU] / 1000 + 1e-6;
		for (int q = 0; q < s->nqueues; q++) {
			double err = fabs(out[q].fair[FW_RES_GPU] - m.fair[q]);
			worst = fmax(worst, err / fmax((double)cap.v[FW_RES_GPU], 1));
			if (err > tol)
				fprintf(stderr, "  iter %d queue %d: %.3f vs %.3f\n",
					iter, q, out[q].fair[FW_RES_GPU], m.fair[q]);
			ASSERT(err <= tol);
			ASSERT_NEAR(out[q].demand[FW_RES_GPU], m.d[q], 0);
			ASSERT_NEAR(out[q].usage, m.u[q], 1e-9 * fmax(m.u[q], 1));
			ASSERT_NEAR(out[q].weight_eff, m.weff[q],
				    1e-9 * fmax(m.weff[q], 1));
		}
	}
	printf("  worst disagreement: %.2e of capacity\n", worst);
	fw_snapshot_free(s);
}

TEST(random_invariants_three_resources)
{
	struct fw_snapshot *s = fw_snapshot_new();
	struct fw_res dem[MAXQ], cap;
	struct fw_share out[MAXQ], again[MAXQ];

	rng_state = 0xD1B54A32D192ED03ull;
	for (int iter = 0; iter < 500; iter++) {
		random_tree(s, dem, &cap, FW_RES_COUNT);
		ASSERT_OK(run(s, dem, cap, out));
		check_invariants(s, out, cap, 0);
		ASSERT_OK(run(s, dem, cap, again));
		ASSERT(memcmp(out, again, sizeof out[0] * (size_t)s->nqueues) == 0);
	}
	fw_snapshot_free(s);
}

/* ---- scale and memory --------------------------------------------------- */

/* 10 roots x 10 departments x 10 teams: 1,110 queues, three resources. */
static struct fw_snapshot *big_tree(struct fw_res *dem)
{
	struct fw_snapshot *s = fw_snapshot_new();

	rng_state = 42;
	for (int i = 0; i < 10; i++) {
		int root = add_q(s, "root", -1);
		dem[root] = fw_res_zero();
		for (int j = 0; j < 10; j++) {
			int d = add_q(s, "dept", root);
			dem[d] = fw_res_zero();
			s->queues[d].deserved = gpus(rnd_in(0, 8));
			for (int k = 0; k < 10; k++) {
				int t = add_q(s, "team", d);
				dem[t] = gpus(rnd_in(0, 64));
				dem[t].v[FW_RES_CPU] = rnd_in(0, 512000);
				dem[t].v[FW_RES_MEM] = rnd_in(0, 1 << 20);
				s->queues[t].priority = (int32_t)rnd_in(0, 3);
				s->queues[t].usage = (double)rnd_in(0, 1000000);
				s->queues[t].over_quota_weight[FW_RES_GPU] =
					(double)rnd_in(1, 4);
			}
		}
	}
	return s;
}

TEST(thousand_queues_fast)
{
	static struct fw_res dem[1110];
	static struct fw_share out[1110];
	struct fw_snapshot *s = big_tree(dem);
	struct fw_res cap = gpus(4096);
	struct fw_arena a;
	clock_t t0;
	double ms;

	cap.v[FW_RES_CPU] = 64000000;
	cap.v[FW_RES_MEM] = (int64_t)1 << 32;
	ASSERT_EQ(s->nqueues, 1110);
	fw_arena_init(&a, 0);
	t0 = clock();
	for (int i = 0; i < 10; i++) {
		fw_arena_reset(&a);
		ASSERT_OK(fw_fairshare_compute(s, dem, cap, &a, out));
	}
	ms = (double)(clock() - t0) * 1000 / CLOCKS_PER_SEC / 10;
	printf("  1110 queues: %.3f ms per compute\n", ms);
	ASSERT(ms < 50); /* budget 5 ms; slack for sanitizer builds */
	check_invariants(s, out, cap, 0);
	fw_arena_release(&a);
	fw_snapshot_free(s);
}

/* Every arena limit either fails cleanly with FW_ENOMEM or succeeds. */
TEST(arena_exhaustion)
{
	static struct fw_res dem[1110];
	static struct fw_share out[1110];
	struct fw_snapshot *s = big_tree(dem);
	int ok = 0, failed = 0;

	for (size_t lim = 1; !ok; lim += 1024) {
		struct fw_arena a;
		int rc;
		fw_arena_init(&a, 4096);
		a.limit = lim;
		rc = fw_fairshare_compute(s, dem, gpus(64), &a, out);
		ASSERT(rc == FW_OK || rc == FW_ENOMEM);
		ok = rc == FW_OK;
		failed += rc == FW_ENOMEM;
		fw_arena_release(&a);
	}
	ASSERT(failed > 0);
	fw_snapshot_free(s);
}

TEST_MAIN(worked_example, free_resource_is_not_divided, sibling_cpu_quota_never_holds_back_unquoted, unquoted_cpu_never_strands_gpus, guaranteed_part_is_deserved_capped_by_demand_and_parent, half_life_decay, held_usage_is_one_integral_however_cut, deserved_guaranteed,
	  limits_never_exceeded, priority_tiers, weights_proportional,
	  drf_consistency, three_level_tree, decayed_usage_lowers_over_user,
	  bad_input, random_vs_reference, random_invariants_three_resources,
	  thousand_queues_fast, arena_exhaustion)
