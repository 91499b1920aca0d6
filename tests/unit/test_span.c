/* test_span.c — a duration in words and a time (fairway/span.h), at
 * their edges, and in the core's reason texts. */
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "fairway/plan.h"
#include "fairway/snapshot.h"
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

static const char *utc(int64_t t)
{
	static char buf[FW_TIME_TEXT_MAX];

	return fw_utc_format(t, buf, sizeof buf);
}

static const char *minute(int64_t t)
{
	static char buf[FW_TIME_TEXT_MAX];

	return fw_utc_format_minute(t, buf, sizeof buf);
}

TEST(utc_dates_at_the_calendars_edges)
{
	ASSERT_STR_EQ(utc(0), "1970-01-01T00:00:00Z");
	ASSERT_STR_EQ(utc(59), "1970-01-01T00:00:59Z");
	ASSERT_STR_EQ(utc(86399), "1970-01-01T23:59:59Z");
	ASSERT_STR_EQ(utc(951825600), "2000-02-29T12:00:00Z"); /* a leap year by 400 */
	ASSERT_STR_EQ(utc(1709164800), "2024-02-29T00:00:00Z");
	ASSERT_STR_EQ(utc(1709251199), "2024-02-29T23:59:59Z");
	ASSERT_STR_EQ(utc(1709251200), "2024-03-01T00:00:00Z");
	ASSERT_STR_EQ(utc(1796575325), "2026-12-06T16:42:05Z");
	ASSERT_STR_EQ(utc(4107542399), "2100-02-28T23:59:59Z"); /* no leap day by 100 */
	ASSERT_STR_EQ(utc(4107542400), "2100-03-01T00:00:00Z");
	ASSERT_STR_EQ(utc(FW_UTC_MAX), "9999-12-31T23:59:59Z");
}

/* Before the epoch and past year 9999: the seconds as they are, never a
 * date with a sign or a fifth digit; the longest fits the bound. */
TEST(utc_out_of_range_is_the_seconds)
{
	ASSERT_STR_EQ(utc(-1), "t=-1");
	ASSERT_STR_EQ(utc(FW_UTC_MAX + 1), "t=253402300800");
	ASSERT_STR_EQ(utc(INT64_MAX), "t=9223372036854775807");
	ASSERT_STR_EQ(utc(INT64_MIN), "t=-9223372036854775808");
	ASSERT(strlen(utc(INT64_MIN)) < FW_TIME_TEXT_MAX);
}

/* A reference model: libc's gmtime_r and strftime (the tests may use
 * libc; lib/ may not) agree with the arithmetic on dates spread over the
 * whole range, each at an odd second of its day. */
TEST(utc_agrees_with_gmtime)
{
	char want[64];
	struct tm tm;

	for (int64_t t = 0; t <= FW_UTC_MAX; t += 86400 * 397 + 3607) {
		time_t tt = (time_t)t;
		ASSERT(gmtime_r(&tt, &tm) != NULL);
		ASSERT(strftime(want, sizeof want, "%Y-%m-%dT%H:%M:%SZ", &tm) > 0);
		ASSERT_STR_EQ(utc(t), want);
	}
}

/* A Slurm comment's minute: rounded up, never a minute already past. */
TEST(utc_minute_rounds_up)
{
	ASSERT_STR_EQ(minute(0), "1970-01-01T00:00Z");
	ASSERT_STR_EQ(minute(1), "1970-01-01T00:01Z");
	ASSERT_STR_EQ(minute(60), "1970-01-01T00:01Z");
	ASSERT_STR_EQ(minute(1709251199), "2024-03-01T00:00Z"); /* over the leap day's midnight */
	ASSERT_STR_EQ(minute(FW_UTC_MAX - 59), "9999-12-31T23:59Z");
	ASSERT_STR_EQ(minute(FW_UTC_MAX), "t=253402300799"); /* rounded, year 10000: the seconds given */
	ASSERT_STR_EQ(minute(-5), "t=-5");
	ASSERT_STR_EQ(minute(INT64_MAX), "t=9223372036854775807"); /* no overflow */
}

TEST(time_format_by_clock_and_cut_to_fit)
{
	char buf[FW_TIME_TEXT_MAX], small[8] = "xxxxxxx";

	ASSERT_STR_EQ(fw_time_format(125200, false, buf, sizeof buf), "t=125200");
	ASSERT_STR_EQ(fw_time_format(125200, true, buf, sizeof buf), "1970-01-02T10:46:40Z");
	ASSERT_STR_EQ(fw_time_format(-1, true, buf, sizeof buf), "t=-1");
	ASSERT(fw_utc_format(0, small, sizeof small) == small);
	ASSERT_STR_EQ(small, "1970-01");
	small[0] = 'x';
	fw_utc_format(0, small, 0); /* nothing written */
	fw_utc_format_minute(0, small, 0);
	fw_time_format(0, false, small, 0);
	ASSERT_EQ(small[0], 'x');
}

/* The reasons whose template takes a time (plan.h args TS, NT): "t=" for
 * virtual seconds (no snapshot, or utc_times off: the simulator's and
 * the scenarios' words unchanged), a UTC date where the snapshot's times
 * are Unix time (the daemon, Slurm). */
TEST(reason_texts_write_times_by_the_snapshots_clock)
{
	struct fw_snapshot *s = fw_snapshot_new();
	char buf[FW_REASON_TEXT_MAX];

	ASSERT(s != NULL);
	s->now = 1796575325 - 25200;
	ASSERT_STR_EQ(fw_reason_format_job(s, -1, FW_REASON_HAS_RESERVATION, 1796575325, 25200, buf, sizeof buf),
		      "reserved: nodes are held for it from t=1796575325 (in 7h00m)");
	s->config.utc_times = true;
	ASSERT_STR_EQ(fw_reason_format_job(s, -1, FW_REASON_HAS_RESERVATION, 1796575325, 25200, buf, sizeof buf),
		      "reserved: nodes are held for it from 2026-12-06T16:42:05Z (in 7h00m)");
	ASSERT_STR_CONTAINS(fw_reason_format_job(s, -1, FW_REASON_LEAVING, 1796575325, 90, buf, sizeof buf),
			    "on nodes that leave at 2026-12-06T16:42:05Z (in 1m30s: ");
	ASSERT_STR_CONTAINS(fw_reason_format_job(s, -1, FW_REASON_RESERVED, 3, 1796575325, buf, sizeof buf),
			    "would delay the reservation of job #3 (due at 2026-12-06T16:42:05Z); it waits");
	ASSERT_STR_CONTAINS(fw_reason_format_job(s, -1, FW_REASON_CHECKPOINT_WAIT, 3, 1796575325, buf, sizeof buf),
			    "which saves a checkpoint at 2026-12-06T16:42:05Z: it waits");
	ASSERT_STR_CONTAINS(fw_reason_format_job(s, -1, FW_REASON_MIN_RUNTIME, 7, 1796575325, buf, sizeof buf),
			    "reclaim may take them from 2026-12-06T16:42:05Z"); /* queue #7: not in s */
	/* the longest time and span fit the core's bound */
	ASSERT(strlen(fw_reason_format_job(s, -1, FW_REASON_LEAVING, INT64_MIN, INT64_MIN, buf, sizeof buf)) + 1 <
	       sizeof buf);
	ASSERT_STR_CONTAINS(buf, "leave at t=-9223372036854775808 (in -2562047788015215h30m08s: ");
	ASSERT_STR_EQ(fw_reason_format(FW_REASON_HAS_RESERVATION, 1796575325, 25200, buf, sizeof buf),
		      "reserved: nodes are held for it from t=1796575325 (in 7h00m)"); /* no snapshot: virtual */
	fw_snapshot_free(s);
}

/* A now of 10^9 s (2001-09-09T01:46:40Z) or more reads as a Unix time (a
 * dated snapshot: `fairway plan --config` writes its dates), a smaller
 * one as virtual seconds (the scenarios' 100..300000, the simulator's); a
 * now past the last date fw_utc_format writes is no date either. */
TEST(a_now_from_2001_on_is_a_date)
{
	char buf[FW_TIME_TEXT_MAX];

	ASSERT(!fw_time_is_date(0));
	ASSERT(!fw_time_is_date(300000));
	ASSERT(!fw_time_is_date(FW_UTC_FROM - 1));
	ASSERT(fw_time_is_date(FW_UTC_FROM));
	ASSERT_STR_EQ(fw_utc_format(FW_UTC_FROM, buf, sizeof buf), "2001-09-09T01:46:40Z");
	ASSERT(fw_time_is_date(1796575325));
	ASSERT(fw_time_is_date(100000000000)); /* the config's largest now */
	ASSERT(fw_time_is_date(FW_UTC_MAX));
	ASSERT(!fw_time_is_date(FW_UTC_MAX + 1));
	ASSERT(!fw_time_is_date(-1));
	ASSERT(!fw_time_is_date(INT64_MIN));
}

TEST_MAIN(seconds_below_a_minute, minutes_with_seconds_only_when_some, hours_with_two_digit_minutes_and_no_days,
	  huge_values_in_full, negative_is_a_minus_then_the_same_words, cut_to_fit_like_snprintf,
	  reason_texts_write_spans_in_words, utc_dates_at_the_calendars_edges, utc_out_of_range_is_the_seconds,
	  utc_agrees_with_gmtime, utc_minute_rounds_up, time_format_by_clock_and_cut_to_fit,
	  reason_texts_write_times_by_the_snapshots_clock, a_now_from_2001_on_is_a_date)
