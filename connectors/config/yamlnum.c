/*
 * yamlnum.c — getters for the config's units: GPUs, CPUs, memory,
 * durations, times and plain decimals.
 *
 * Each converts with the exact parsers of lib/scalar.c (fairway/scalar.h,
 * the command line's too) into the core's integer unit (milli-GPU,
 * millicore, MiB, seconds) and range-checks the result.
 * Amounts are capped at AMOUNT_MAX so that summing every node's capacity
 * (FW_CONFIG_MAX_NODES of them) can never overflow an int64 in the core.
 * Where a limit may be unlimited, the literal -1 is FW_UNLIMITED.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_int.h"
#include "fairway/span.h"
#include "fwconfig.h"

#define AMOUNT_MAX 1000000000000LL        /* 1e12 of the core's unit */
#define DURATION_MAX_MS (FW_CONFIG_MAX_SECONDS * 1000) /* ~3170 years */

enum amount_kind { AM_GPU, AM_CPU, AM_MEM };

static int parse_amount(enum amount_kind k, const char *t, int64_t *out)
{
	switch (k) {
	case AM_GPU:
		return fw_parse_fixed(t, 3, out);
	case AM_CPU:
		return fw_parse_cpu(t, out);
	default:
		return fw_parse_mib(t, out);
	}
}

static const char *amount_help(enum amount_kind k)
{
	switch (k) {
	case AM_GPU:
		return "is not a GPU amount; write GPUs as a number with at "
		       "most 3 decimals (8, 0.5)";
	case AM_CPU:
		return "is not a CPU amount; write cores with at most 3 "
		       "decimals (8, 0.5) or millicores (\"500m\")";
	default:
		return "is not a memory amount; write MiB (512) or a binary "
		       "quantity (\"512Mi\", \"80Gi\", \"1Ti\"; decimal "
		       "suffixes like G are not accepted)";
	}
}

static int amount(struct cfg *c, const yaml_node_t *map, const char *path,
		  const char *key, enum amount_kind k, bool unlimited_ok,
		  int64_t *out)
{
	char fp[CFG_PATH];
	yaml_node_t *v;
	const char *t;
	int64_t x;
	int rc = cfg_get_text(c, map, path, key, fp, &v, &t);

	if (rc <= 0)
		return rc;
	if (unlimited_ok && strcmp(t, "-1") == 0) {
		*out = FW_UNLIMITED;
		return FW_OK;
	}
	rc = parse_amount(k, t, &x);
	if (rc == FW_EINVAL)
		return cfg_fail(c, v, rc, fp, "\"%s\" %s", t, amount_help(k));
	if (!rc && x < 0)
		return cfg_fail(c, v, FW_ERANGE, fp,
				"%s must not be negative (got %s); write 0 or "
				"a positive amount%s",
				key, t,
				unlimited_ok ? " (-1 means unlimited)" : "");
	if (rc || x > AMOUNT_MAX)
		return cfg_fail(c, v, FW_ERANGE, fp,
				"\"%s\" is too large; amounts are limited to "
				"%lld %s",
				t, AMOUNT_MAX,
				k == AM_GPU   ? "milli-GPUs"
				: k == AM_CPU ? "millicores"
					      : "MiB");
	*out = x;
	return FW_OK;
}

int fw_config_parse_mib(const char *text, int64_t *mib)
{
	return fw_parse_mib(text, mib);
}

int cfg_cpu(struct cfg *c, const yaml_node_t *map, const char *path,
	    const char *key, bool unlimited_ok, int64_t *out)
{
	return amount(c, map, path, key, AM_CPU, unlimited_ok, out);
}

int cfg_gpu(struct cfg *c, const yaml_node_t *map, const char *path,
	    const char *key, bool unlimited_ok, int64_t *out)
{
	return amount(c, map, path, key, AM_GPU, unlimited_ok, out);
}

int cfg_mib(struct cfg *c, const yaml_node_t *map, const char *path,
	    const char *key, bool unlimited_ok, int64_t *out)
{
	return amount(c, map, path, key, AM_MEM, unlimited_ok, out);
}

/* ---- a refused duration or time: what it was probably meant to be ----
 *
 * A person writes "5 minutes", "2H", "1 week", "-30m", "1h-30m" or a
 * date where a duration goes, or a date where a time goes.  The parser
 * (fw_parse_duration_ms, lib/scalar.c) rightly takes none of them; the
 * refusal says which slip it is and, where one spelling is clearly
 * meant, writes it ("write \"5m\""; a date's Unix time).  Nothing here
 * accepts anything: a hint only words the refusal. */

/* A unit as people write it (case aside), as the letter the parser takes
 * and how many of that letter one is; letter 0: milliseconds. */
static const struct unit_word {
	const char *word;
	char letter;
	int per;
} unit_words[] = {
	{ "s", 's', 1 },  { "sec", 's', 1 },   { "secs", 's', 1 },    { "second", 's', 1 },  { "seconds", 's', 1 },
	{ "m", 'm', 1 },  { "min", 'm', 1 },   { "mins", 'm', 1 },    { "minute", 'm', 1 },  { "minutes", 'm', 1 },
	{ "h", 'h', 1 },  { "hr", 'h', 1 },    { "hrs", 'h', 1 },     { "hour", 'h', 1 },    { "hours", 'h', 1 },
	{ "d", 'd', 1 },  { "day", 'd', 1 },   { "days", 'd', 1 },    { "w", 'd', 7 },       { "wk", 'd', 7 },
	{ "week", 'd', 7 }, { "weeks", 'd', 7 }, { "ms", 0, 1 },      { "msec", 0, 1 },      { "millisecond", 0, 1 },
	{ "milliseconds", 0, 1 },
};

static const struct unit_word *unit_of(const char *w, size_t n)
{
	char low[16];

	if (n >= sizeof low)
		return NULL;
	for (size_t i = 0; i < n; i++)
		low[i] = (char)(w[i] >= 'A' && w[i] <= 'Z' ? w[i] - 'A' + 'a' : w[i]);
	low[n] = 0;
	for (size_t i = 0; i < sizeof unit_words / sizeof unit_words[0]; i++)
		if (!strcmp(low, unit_words[i].word))
			return &unit_words[i];
	return NULL;
}

/* One term, the number num (nd characters) in unit u, appended to out as
 * the parser writes it: "5" "minutes" -> "5m"; weeks in days and
 * milliseconds in seconds, whole numbers only.  false when it cannot. */
static bool add_term(char *out, size_t n, size_t *len, const char *num, size_t nd, const struct unit_word *u)
{
	bool whole = strspn(num, "0123456789") >= nd;
	long long x = whole ? strtoll(num, NULL, 10) : 0;
	int r;

	if (u->letter && u->per == 1)
		r = snprintf(out + *len, n - *len, "%.*s%c", (int)nd, num, u->letter);
	else if (!whole)
		return false;
	else if (u->letter)
		r = snprintf(out + *len, n - *len, "%lld%c", x * u->per, u->letter);
	else if (x % 10)
		r = snprintf(out + *len, n - *len, "%lld.%03llds", x / 1000, x % 1000);
	else if (x % 1000)
		r = snprintf(out + *len, n - *len, "%lld.%.*llds", x / 1000, x % 100 ? 2 : 1,
			     x % 100 ? x % 1000 / 10 : x % 1000 / 100);
	else
		r = snprintf(out + *len, n - *len, "%llds", x / 1000);
	if (r < 0 || (size_t)r >= n - *len)
		return false;
	*len += (size_t)r;
	return true;
}

/* t respelled as the parser takes it, into out: "5 minutes" -> "5m",
 * "2H" -> "2h", "1 week" -> "7d", "1h, 30 min" -> "1h30m", "3600000ms"
 * -> "3600s"; false when t is not a slip of that kind, or (whole) the
 * spelling is not whole seconds, which the key would refuse in turn. */
static bool respell(const char *t, bool whole, char *out, size_t n)
{
	size_t len = 0, nd, nw;
	const struct unit_word *u;
	const char *w;
	int64_t ms;

	out[0] = 0;
	for (;;) {
		t += strspn(t, " ,");
		if (!strncmp(t, "and ", 4))
			t += 4;
		if (!*t)
			break;
		nd = strspn(t, "0123456789.");
		if (nd == 0 || nd > 15)
			return false;
		w = t + nd + strspn(t + nd, " ");
		nw = strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");
		if (!(u = unit_of(w, nw)) || !add_term(out, n, &len, t, nd, u))
			return false;
		t = w + nw;
	}
	return len > 0 && fw_parse_duration_ms(out, &ms) == FW_OK && !(whole && ms % 1000);
}

/* n decimal digits at t as a number, or -1 when they are not all digits. */
static int digits(const char *t, int n)
{
	int x = 0;

	for (int i = 0; i < n; i++) {
		if (t[i] < '0' || t[i] > '9')
			return -1;
		x = x * 10 + (t[i] - '0');
	}
	return x;
}

/* t as an ISO 8601 UTC date, "2026-12-06", "2026-12-06T14:40" or
 * "2026-12-06T14:40:00Z" (a space for the T, the Z left out: read as
 * UTC), from 1970 to 9999, as Unix seconds in *ut; false when it is
 * none. */
static bool iso_date(const char *t, int64_t *ut)
{
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int y = digits(t, 4), mo = -1, d = -1, h = 0, mi = 0, s = 0;

	if (y < 1970 || t[4] != '-' || (mo = digits(t + 5, 2)) < 1 || mo > 12 || t[7] != '-' ||
	    (d = digits(t + 8, 2)) < 1 || d > mdays[mo - 1] || (mo == 2 && d == 29 && (y % 4 || (y % 100 == 0 && y % 400))))
		return false;
	t += 10;
	if (*t == 'T' || *t == ' ') {
		if ((h = digits(t + 1, 2)) < 0 || h > 23 || t[3] != ':' || (mi = digits(t + 4, 2)) < 0 || mi > 59)
			return false;
		t += 6;
		if (*t == ':' && ((s = digits(t + 1, 2)) < 0 || s > 59))
			return false;
		t += *t == ':' ? 3 : 0;
	}
	t += *t == 'Z';
	*ut = fw_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
	return *t == 0;
}

/* What a key holds: a duration to the millisecond, one in whole seconds,
 * or a time (whole seconds too). */
enum span_kind { SPAN_MS, SPAN_SECONDS, SPAN_TIME };

/* Refuse t, which the parser does not take as kind k, saying which slip
 * it is and what to write. */
static int not_a_span(struct cfg *c, const yaml_node_t *v, const char *fp, const char *t, enum span_kind k)
{
	bool is_time = k == SPAN_TIME;
	const char *what = is_time ? "a time" : "a duration";
	char fix[64];
	int64_t ut;

	if (t[0] == '-')
		return cfg_fail(c, v, FW_EINVAL, fp, "\"%s\" is not %s: it is negative; %s", t, what,
				is_time ? "a time counts seconds from the snapshot's epoch, so write one of 0 or more"
					: "a duration is a length of time, 0 or more, so write it without the \"-\"");
	if (iso_date(t, &ut) && is_time)
		return cfg_fail(c, v, FW_EINVAL, fp, "\"%s\" is not a time: it is a date; times are seconds, so write "
				"its Unix time, %lld (seconds since 1970-01-01T00:00:00Z, as `date -u +%%s` counts)",
				t, (long long)ut);
	if (iso_date(t, &ut))
		return cfg_fail(c, v, FW_EINVAL, fp, "\"%s\" is not a duration: it is a date; a duration is a "
				"length of time, such as \"7d\" or \"1h30m\"", t);
	if (respell(t, k != SPAN_MS, fix, sizeof fix))
		return cfg_fail(c, v, FW_EINVAL, fp, "\"%s\" is not %s as fairway writes one; write \"%s\" "
				"(numbers with a unit s, m, h, d and no spaces: \"15m\", \"7d\", \"1h30m\")",
				t, what, fix);
	if (is_time)
		return cfg_fail(c, v, FW_EINVAL, fp, "\"%s\" is not a time; write seconds from the snapshot's "
				"epoch (7200, or \"2h\"; a live fleet's snapshot: its Unix time, as `date -u +%%s` "
				"counts)", t);
	if (strchr(t, '-'))
		return cfg_fail(c, v, FW_EINVAL, fp, "\"%s\" is not a duration: its terms add up and none is "
				"negative (\"1h30m\" is an hour and a half); write the length itself, such as \"30m\"", t);
	return cfg_fail(c, v, FW_EINVAL, fp, "\"%s\" is not a duration; write seconds (30) or numbers with a "
			"unit s, m, h, d (\"15m\", \"7d\", \"1h30m\")", t);
}

/* map[key] as a duration in ms, refused as kind k; absent leaves *ms
 * alone. */
static int read_span(struct cfg *c, const yaml_node_t *map, const char *path, const char *key, enum span_kind k,
		     int64_t *ms)
{
	char fp[CFG_PATH], most[FW_SPAN_MAX];
	yaml_node_t *v;
	const char *t;
	int64_t x;
	int rc = cfg_get_text(c, map, path, key, fp, &v, &t);

	if (rc <= 0)
		return rc;
	rc = fw_parse_duration_ms(t, &x);
	if (rc == FW_EINVAL)
		return not_a_span(c, v, fp, t, k);
	if ((rc || x > DURATION_MAX_MS) && k == SPAN_TIME)
		return cfg_fail(c, v, FW_ERANGE, fp,
				"\"%s\" is too late; times are limited to %lld "
				"seconds (%s as a Unix time), so write an earlier one",
				t, DURATION_MAX_MS / 1000, fw_utc_format(DURATION_MAX_MS / 1000, most, sizeof most));
	if (rc || x > DURATION_MAX_MS)
		return cfg_fail(c, v, FW_ERANGE, fp,
				"\"%s\" is too long; durations are limited to "
				"%lld seconds (%s, about 3170 years), so write a "
				"shorter one",
				t, DURATION_MAX_MS / 1000,
				fw_span_format(DURATION_MAX_MS / 1000, most, sizeof most));
	*ms = x;
	return FW_OK;
}

int cfg_duration(struct cfg *c, const yaml_node_t *map, const char *path,
		 const char *key, int64_t *ms)
{
	return read_span(c, map, path, key, SPAN_MS, ms);
}

/* map[key] in whole seconds (is_time: a time, whose refusals say so). */
static int whole_seconds(struct cfg *c, const yaml_node_t *map, const char *path, const char *key, bool is_time,
			 fw_time *out)
{
	char fp[CFG_PATH];
	int64_t ms = -1;
	int rc = read_span(c, map, path, key, is_time ? SPAN_TIME : SPAN_SECONDS, &ms);

	if (rc || ms < 0)
		return rc;
	if (ms % 1000)
		return cfg_fail(c, cfg_get(c, map, key), FW_EINVAL,
				cfg_path(fp, path, key),
				"%s are whole seconds; round the value to "
				"a whole number of seconds", is_time ? "times" : "durations here");
	*out = ms / 1000;
	return FW_OK;
}

int cfg_time(struct cfg *c, const yaml_node_t *map, const char *path,
	     const char *key, fw_time *out)
{
	return whole_seconds(c, map, path, key, false, out);
}

int cfg_when(struct cfg *c, const yaml_node_t *map, const char *path,
	     const char *key, fw_time *out)
{
	return whole_seconds(c, map, path, key, true, out);
}

const char *cfg_time_text(const struct cfg *c, fw_time t, bool inner, char *buf, size_t n)
{
	char date[FW_TIME_TEXT_MAX];

	if (!c->s->config.utc_times || t < 0 || t > FW_UTC_MAX)
		snprintf(buf, n, "%lld", (long long)t);
	else
		snprintf(buf, n, inner ? "%lld, %s" : "%lld (%s)", (long long)t,
			 fw_utc_format(t, date, sizeof date));
	return buf;
}

/* A job's 32-bit span x (from the scalar v at field fp) is past
 * FW_SPAN32_MAX: say what was written and what it comes to in words
 * ("\"30000d\" is 720000h00m (2592000000 s)", or, for bare seconds,
 * "2592000000 s is 720000h00m"), so a slip of unit (milliseconds, a day
 * count taken for hours) shows, then the most it may be. */
static int span32_too_long(struct cfg *c, const yaml_node_t *v, const char *fp, const char *key, fw_time x)
{
	const char *t = (const char *)v->data.scalar.value;
	char words[FW_SPAN_MAX], given[128];

	fw_span_format(x, words, sizeof words);
	if (t[strspn(t, "0123456789")] == 0)
		snprintf(given, sizeof given, "%.40s s is %s", t, words);
	else
		snprintf(given, sizeof given, "\"%.40s\" is %s (%lld s)", t, words, (long long)x);
	return cfg_fail(c, v, FW_ERANGE, fp,
			"%s, too long; a job's %s is at most %lld s (68 "
			"years), so lower it",
			given, key, (long long)FW_SPAN32_MAX);
}

int cfg_time32(struct cfg *c, const yaml_node_t *map, const char *path,
	       const char *key, int32_t *out)
{
	char fp[CFG_PATH];
	fw_time x = -1;
	int rc = cfg_time(c, map, path, key, &x);

	if (rc || x < 0)
		return rc;
	if (x > FW_SPAN32_MAX)
		return span32_too_long(c, cfg_get(c, map, key), cfg_path(fp, path, key), key, x);
	*out = (int32_t)x;
	return FW_OK;
}

int cfg_double(struct cfg *c, const yaml_node_t *map, const char *path,
	       const char *key, double hi, double *out)
{
	char fp[CFG_PATH];
	yaml_node_t *v;
	const char *t;
	int64_t micro;
	int rc = cfg_get_text(c, map, path, key, fp, &v, &t);

	if (rc <= 0)
		return rc;
	rc = fw_parse_fixed(t, 6, &micro);
	if (rc == FW_EINVAL)
		return cfg_fail(c, v, rc, fp,
				"\"%s\" is not a number; write a decimal with "
				"at most 6 decimals, such as 1.5",
				t);
	if (rc || micro < 0 || (double)micro / 1e6 > hi)
		return cfg_fail(c, v, FW_ERANGE, fp,
				"%s is out of range; use a number from 0 to "
				"%.10g",
				t, hi);
	*out = (double)micro / 1e6;
	return FW_OK;
}
