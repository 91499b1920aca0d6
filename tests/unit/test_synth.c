/* test_synth.c — the synthetic ITP-like trace keeps its documented stats. */
#include <stdlib.h>

#include "harness.h"
#include "synth.h"

TEST(same_seed_same_trace)
{
	struct fw_itp_trace a, b;
	ASSERT_OK(fw_synth_itp(7, 500, &a));
	ASSERT_OK(fw_synth_itp(7, 500, &b));
	ASSERT_EQ(a.n, 500);
	for (size_t i = 0; i < a.n; i++) {
		ASSERT_EQ(a.v[i].submit, b.v[i].submit);
		ASSERT_EQ(a.v[i].duration, b.v[i].duration);
		ASSERT_EQ(a.v[i].gpus, b.v[i].gpus);
	}
	fw_itp_free(&a);
	ASSERT_OK(fw_synth_itp(8, 500, &a));
	int same = 0;
	for (size_t i = 0; i < a.n; i++)
		same += a.v[i].duration == b.v[i].duration;
	ASSERT(same < 50);
	fw_itp_free(&a);
	fw_itp_free(&b);
}

TEST(sizes_durations_and_arrivals_follow_cluster06)
{
	struct fw_itp_trace t;
	size_t n = 20000, ones = 0, eights = 0, big = 0;
	ASSERT_OK(fw_synth_itp(1, n, &t));
	for (size_t i = 0; i < n; i++) {
		ones += t.v[i].gpus == 1;
		eights += t.v[i].gpus == 8;
		big += t.v[i].gpus >= 16;
		ASSERT(t.v[i].duration >= 600 && t.v[i].duration <= 900000);
		if (i)
			ASSERT(t.v[i].submit >= t.v[i - 1].submit);
	}
	ASSERT_NEAR((double)ones / n, 0.448, 0.015);
	ASSERT_NEAR((double)eights / n, 0.452, 0.015);
	ASSERT_NEAR((double)big / n, 0.036, 0.006);
	ASSERT_NEAR((double)t.v[n - 1].submit / (double)(n - 1), 2151, 80);
	fw_itp_free(&t);
}

TEST(offered_load_at_13x8_is_near_83_percent)
{
	struct fw_itp_trace t;
	double work = 0;
	ASSERT_OK(fw_synth_itp(1, FW_SYNTH_JOBS, &t));
	for (size_t i = 0; i < t.n; i++)
		work += (double)t.v[i].gpus * (double)t.v[i].duration;
	double load = work / (104.0 * (double)(t.v[t.n - 1].submit - t.v[0].submit));
	ASSERT(load > 0.6 && load < 1.1);
	fw_itp_free(&t);
}

TEST_MAIN(same_seed_same_trace, sizes_durations_and_arrivals_follow_cluster06,
	  offered_load_at_13x8_is_near_83_percent)
