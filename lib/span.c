/*
 * span.c — a duration in words, and a time as its clock's texts write
 * it (span.h).
 */
#include <stdio.h>

#include "fairway/span.h"

/* The magnitude of secs, INT64_MIN included (no overflow). */
static uint64_t magnitude(int64_t secs)
{
	return secs < 0 ? 0 - (uint64_t)secs : (uint64_t)secs;
}

char *fw_span_format(int64_t secs, char *buf, size_t n)
{
	uint64_t m = magnitude(secs), h = m / 3600, min = m % 3600 / 60, sec = m % 60;
	const char *sign = secs < 0 ? "-" : "";
	char tail[8] = "";

	if (n == 0)
		return buf;
	if (m >= 60 && sec)
		snprintf(tail, sizeof tail, "%02llus", (unsigned long long)sec);
	if (m < 60)
		snprintf(buf, n, "%s%llus", sign, (unsigned long long)m);
	else if (m < 3600)
		snprintf(buf, n, "%s%llum%s", sign, (unsigned long long)min, tail);
	else
		snprintf(buf, n, "%s%lluh%02llum%s", sign, (unsigned long long)h, (unsigned long long)min, tail);
	return buf;
}

/* A civil date in the proleptic Gregorian calendar. */
struct civil {
	int64_t year;
	int month, day;
};

/* Day 0 = 1970-01-01, days >= 0, by 400-year eras of 146097 days each
 * counted from 0000-03-01 (so a leap day ends its year): H. Hinnant's
 * civil_from_days, integers only. */
static struct civil civil_from_days(int64_t days)
{
	int64_t z = days + 719468, era = z / 146097, doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
	int month = (int)(mp < 10 ? mp + 3 : mp - 9);

	return (struct civil){ yoe + era * 400 + (month <= 2), month, (int)(doy - (153 * mp + 2) / 5 + 1) };
}

/* Its inverse, H. Hinnant's days_from_civil. */
int64_t fw_days_from_civil(int64_t y, int64_t m, int64_t d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400, yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;

	return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}

static bool in_range(int64_t t)
{
	return t >= 0 && t <= FW_UTC_MAX;
}

/* t in range, to the second or (minute) to the minute. */
static void write_utc(int64_t t, bool minute, char *buf, size_t n)
{
	struct civil c = civil_from_days(t / 86400);
	int64_t s = t % 86400;

	if (minute)
		snprintf(buf, n, "%04lld-%02d-%02dT%02d:%02dZ", (long long)c.year, c.month, c.day, (int)(s / 3600),
			 (int)(s % 3600 / 60));
	else
		snprintf(buf, n, "%04lld-%02d-%02dT%02d:%02d:%02dZ", (long long)c.year, c.month, c.day,
			 (int)(s / 3600), (int)(s % 3600 / 60), (int)(s % 60));
}

char *fw_utc_format(int64_t t, char *buf, size_t n)
{
	if (n == 0)
		return buf;
	if (in_range(t))
		write_utc(t, false, buf, n);
	else
		snprintf(buf, n, "t=%lld", (long long)t);
	return buf;
}

char *fw_utc_format_minute(int64_t t, char *buf, size_t n)
{
	int64_t up = in_range(t) && t % 60 ? t + (60 - t % 60) : t; /* never a minute already past */

	if (n == 0)
		return buf;
	if (in_range(up))
		write_utc(up, true, buf, n);
	else
		snprintf(buf, n, "t=%lld", (long long)t);
	return buf;
}

bool fw_time_is_date(int64_t now)
{
	return now >= FW_UTC_FROM && now <= FW_UTC_MAX;
}

char *fw_time_format(int64_t t, bool utc, char *buf, size_t n)
{
	if (utc)
		return fw_utc_format(t, buf, n);
	if (n > 0)
		snprintf(buf, n, "t=%lld", (long long)t);
	return buf;
}
