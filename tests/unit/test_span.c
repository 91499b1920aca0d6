/* test_span.c — a duration in words (fairway/span.h), at its edges, and
 * in the core's reason texts. */
#include <stdint.h>

#include "fairway/plan.h"
#include "fairway/span.h"
#include "harness.h"

static const char *sp(int64_t secs)
{
	static char buf[FW_SPAN_MAX];

	return fw_span_format(secs, buf, sizeof buf);
}

TEST(seconds_below_a_minute)
{
	ASSERT_STR_EQ(sp(0), "0s");
	ASSERT_STR_EQ(sp(1), "1s");
	ASSERT_STR_EQ(sp(45), "45s");
	ASSERT_STR_EQ(sp(59), "59s");
}

TEST(minutes_with_seconds_only_when_some)
{
	ASSERT_STR_EQ(sp(60), "1m");
	ASSERT_STR_EQ(sp(65), "1m05s");
	ASSERT_STR_EQ(sp(300), "5m");
	ASSERT_STR_EQ(sp(330), "5m30s");
	ASSERT_STR_EQ(sp(3599), "59m59s"); /* never rounded up to an hour */
}

TEST(hours_with_two_digit_minutes_and_no_days)
{
	ASSERT_STR_EQ(sp(3600), "1h00m");
	ASSERT_STR_EQ(sp(3601), "1h00m01s");
	ASSERT_STR_EQ(sp(25200), "7h00m");
	ASSERT_STR_EQ(sp(86399), "23h59m59s");
	ASSERT_STR_EQ(sp(86400), "24h00m"); /* a day stays in hours */
	ASSERT_STR_EQ(sp(96000), "26h40m");
	ASSERT_STR_EQ(sp(7 * 86400), "168h00m");
}

TEST(huge_values_in_full)
{
	ASSERT_STR_EQ(sp(INT32_MAX), "596523h14m07s");
	ASSERT_STR_EQ(sp(INT64_MAX), "2562047788015215h30m07s");
}

TEST(negative_is_a_minus_then_the_same_words)
{
	ASSERT_STR_EQ(sp(-1), "-1s");
	ASSERT_STR_EQ(sp(-59), "-59s");
	ASSERT_STR_EQ(sp(-60), "-1m");
	ASSERT_STR_EQ(sp(-330), "-5m30s");
	ASSERT_STR_EQ(sp(-86400), "-24h00m");
	ASSERT_STR_EQ(sp(INT64_MIN), "-2562047788015215h30m08s"); /* no overflow */
	ASSERT(strlen(sp(INT64_MIN)) < FW_SPAN_MAX); /* the longest span fits the bound */
}

TEST(cut_to_fit_like_snprintf)
{
	char buf[5] = "xxxx";

	ASSERT(fw_span_format(25230, buf, sizeof buf) == buf);
	ASSERT_STR_EQ(buf, "7h00");
	ASSERT_STR_EQ(fw_span_format(330, buf, 1), "");
	buf[0] = 'x';
	fw_span_format(330, buf, 0); /* nothing written */
	ASSERT_EQ(buf[0], 'x');
}

/* The reasons whose template takes a span (plan.h args NS, SS) write it
 * in words, and the absolute time as it is; the longest fit the bound. */
TEST(reason_texts_write_spans_in_words)
{
	char buf[FW_REASON_TEXT_MAX];

	ASSERT_STR_EQ(fw_reason_format(FW_REASON_HAS_RESERVATION, 125200, 25200, buf, sizeof buf),
		      "reserved: nodes are held for it from t=125200 (in 7h00m)");
	ASSERT_STR_EQ(fw_reason_format(FW_REASON_LEAVING, 5000, 90, buf, sizeof buf),
		      "it fits now only on nodes that leave at t=5000 (in 1m30s: a maintenance window or a reservation "
		      "made outside fairway) and it would not end by then; it waits for other room or for their return");
	ASSERT_STR_EQ(fw_reason_format(FW_REASON_TIME_LIMIT, 7205, 7200, buf, sizeof buf),
		      "ended: it has run 2h00m05s and its run-time limit (maxRuntime) is 2h00m; it is stopped, not "
		      "requeued");
	ASSERT_STR_CONTAINS(fw_reason_format(FW_REASON_TIME_LIMIT, INT64_MIN, INT64_MAX, buf, sizeof buf),
			    "it has run -2562047788015215h30m08s and its run-time limit (maxRuntime) is "
			    "2562047788015215h30m07s; it is stopped, not requeued");
	/* a count stays a number: "1 GPU", not a span */
	ASSERT_STR_CONTAINS(fw_reason_format(FW_REASON_GPUS_BUSY, 2, 1, buf, sizeof buf), "the cluster has 1 free");
}

TEST_MAIN(seconds_below_a_minute, minutes_with_seconds_only_when_some, hours_with_two_digit_minutes_and_no_days,
	  huge_values_in_full, negative_is_a_minus_then_the_same_words, cut_to_fit_like_snprintf,
	  reason_texts_write_spans_in_words)
