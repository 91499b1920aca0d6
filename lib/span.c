/*
 * span.c — a duration in words (span.h).
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
