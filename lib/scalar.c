/* scalar.c — see fairway/scalar.h. */
#include <string.h>

#include "fairway/err.h"
#include "fairway/scalar.h"

#define MAX_FRAC 9

static int is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

/* Parse a decimal at s; *end is left after it.  value = num / 10^scale. */
static int parse_decimal(const char *s, const char **end, int64_t *num,
			 int *scale)
{
	int neg = 0, digits = 0, sc = 0, frac = 0;
	int64_t v = 0;

	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	for (; is_digit(*s) || (*s == '.' && !frac); s++) {
		if (*s == '.') {
			frac = 1;
			continue;
		}
		if (frac && sc == MAX_FRAC && *s == '0')
			continue; /* "8.0000000000": zeros past the 9th change nothing */
		if (frac && ++sc > MAX_FRAC)
			return FW_EINVAL; /* a syntax limit, not a magnitude */
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, *s - '0', &v))
			return FW_ERANGE;
		digits++;
	}
	if (!digits)
		return FW_EINVAL;
	*end = s;
	*num = neg ? -v : v;
	*scale = sc;
	return FW_OK;
}

static int64_t pow10i(int k)
{
	int64_t p = 1;
	while (k-- > 0)
		p *= 10;
	return p;
}

/* out = num / 10^scale * mul / div, which must be a whole number. */
static int scale_exact(int64_t num, int scale, int64_t mul, int64_t div,
		       int64_t *out)
{
	int64_t v, den = pow10i(scale);

	if (__builtin_mul_overflow(den, div, &den))
		return FW_ERANGE;
	if (__builtin_mul_overflow(num, mul, &v))
		return FW_ERANGE;
	if (v % den != 0)
		return FW_EINVAL;
	*out = v / den;
	return FW_OK;
}

int fw_parse_fixed(const char *s, int digits, int64_t *out)
{
	const char *end;
	int64_t num;
	int scale, rc = parse_decimal(s, &end, &num, &scale);

	if (rc)
		return rc;
	if (*end)
		return FW_EINVAL;
	return scale_exact(num, scale, pow10i(digits), 1, out);
}

int fw_parse_int(const char *s, int64_t *out)
{
	return fw_parse_fixed(s, 0, out);
}

int fw_parse_cpu(const char *s, int64_t *milli)
{
	size_t n = strlen(s);
	const char *end;
	int64_t num;
	int scale, rc;

	if (n < 2 || s[n - 1] != 'm')
		return fw_parse_fixed(s, 3, milli);
	rc = parse_decimal(s, &end, &num, &scale);
	if (rc)
		return rc;
	if (end != s + n - 1)
		return FW_EINVAL;
	return scale_exact(num, scale, 1, 1, milli);
}

int fw_parse_mib(const char *s, int64_t *mib)
{
	/* Multipliers in KiB; the result is divided by 1024 KiB per MiB. */
	static const struct {
		const char *suffix;
		int64_t kib;
	} units[] = { { "", 1024 },
		      { "Ki", 1 },
		      { "Mi", 1024 },
		      { "Gi", 1024 * 1024 },
		      { "Ti", 1024LL * 1024 * 1024 },
		      { "Pi", 1024LL * 1024 * 1024 * 1024 } };
	const char *end;
	int64_t num;
	int scale, rc = parse_decimal(s, &end, &num, &scale);

	if (rc)
		return rc;
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (strcmp(end, units[i].suffix) == 0)
			return scale_exact(num, scale, units[i].kib, 1024, mib);
	return FW_EINVAL;
}

static int64_t duration_unit_ms(char u)
{
	switch (u) {
	case 's':
		return 1000;
	case 'm':
		return 60 * 1000;
	case 'h':
		return 3600 * 1000;
	case 'd':
		return 86400 * 1000;
	default:
		return 0;
	}
}

int fw_parse_duration_ms(const char *s, int64_t *ms)
{
	const char *start = s, *end;
	int64_t total = 0, num, part, unit;
	int scale, rc;

	if (!*s)
		return FW_EINVAL;
	while (*s) {
		if (*s == '+' || *s == '-')
			return FW_EINVAL;
		rc = parse_decimal(s, &end, &num, &scale);
		if (rc)
			return rc;
		if (!*end && s == start)
			unit = 1000; /* a bare number is seconds */
		else if (!(unit = duration_unit_ms(*end)))
			return FW_EINVAL;
		rc = scale_exact(num, scale, unit, 1, &part);
		if (rc)
			return rc;
		if (__builtin_add_overflow(total, part, &total))
			return FW_ERANGE;
		s = *end ? end + 1 : end;
	}
	*ms = total;
	return FW_OK;
}

int fw_parse_bool(const char *s, bool *out)
{
	if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE"))
		*out = true;
	else if (!strcmp(s, "false") || !strcmp(s, "False") ||
		 !strcmp(s, "FALSE"))
		*out = false;
	else
		return FW_EINVAL;
	return FW_OK;
}
