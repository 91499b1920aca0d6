/*
 * fuzz_scalar.c — libFuzzer target for the scalar grammar every front end
 * shares (lib/scalar.c, fairway/scalar.h: the config's amounts and
 * durations, the API's, and the command line's) and the command-line
 * words around it (tools/cliword.c: fw_cli_duration for --runtime,
 * --since, --start +D, --log-keep and the simulator's time flags;
 * fw_cli_decimal for --priority and the amount flags; the --server base;
 * the flag hint).
 *
 * The first byte chooses the parser, the rest (up to a NUL) is the word.
 * Each amount parser is held to an independent reference written here
 * with 128-bit integers (the digits as one integer over a power of ten):
 *   - what a parser accepts, the reference accepts with the same value
 *     (nothing rounded, nothing misread);
 *   - what the reference accepts with a value far from the int64 edge
 *     (under 2^62 at every step), the parser accepts too;
 * and the words: fw_cli_duration agrees with fw_parse_duration_ms (sign
 * aside); fw_cli_decimal's number is the prefix strtod reads and, when
 * it is the whole word, fw_parse_fixed's value; the --server base is
 * the URL less trailing slashes and one "/v1" at most; a hint names one
 * of the candidates, never the word itself, and fits its buffer.  Built
 * with -fsanitize=fuzzer under clang, and as fuzz_replay_scalar with
 * replay.c over tests/fuzz/corpus/scalar in every test run.
 */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cliword.h"
#include "fairway/err.h"
#include "fairway/scalar.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

__extension__ typedef __int128 i128; /* gcc and clang both have it */

#define WORD_MAX 256
#define NEAR_EDGE ((i128)1 << 62) /* "far from the int64 edge" below this */

/* ---- the reference: a decimal as num / 10^scale, exactly ---- */

struct ref {
	int rc;        /* FW_OK, FW_EINVAL, or FW_ERANGE (more digits than 20) */
	i128 num;      /* signed digits, trailing fraction zeros dropped */
	int scale;     /* significant fraction digits, at most 9 */
	int pad;       /* the trailing zeros the parser keeps (up to 9 in all) */
	const char *end;
};

/* [+-] digits [. digits] or [+-] . digits: scale() is the exact value. */
static struct ref ref_decimal(const char *s)
{
	struct ref r = { FW_EINVAL, 0, 0, 0, s };
	bool neg = *s == '-';
	const char *p = s + (*s == '+' || *s == '-'), *fr;
	size_t whole = strspn(p, "0123456789"), frac = 0, sig = 0, lead;

	fr = p + whole;
	if (*fr == '.')
		frac = strspn(fr + 1, "0123456789");
	if (whole + frac == 0)
		return r;
	r.end = fr + (*fr == '.' ? 1 + frac : 0);
	for (size_t k = frac; k > 0; k--)
		if (fr[k] != '0') {
			sig = k;
			break;
		}
	if (sig > 9)
		return r; /* more than 9 decimals that are not trailing zeros */
	lead = strspn(p, "0");
	if ((whole > lead ? whole - lead : 0) + sig > 20) { /* past int64 anyway */
		r.rc = FW_ERANGE;
		return r;
	}
	for (size_t k = 0; k < whole; k++)
		r.num = r.num * 10 + (p[k] - '0');
	for (size_t k = 1; k <= sig; k++)
		r.num = r.num * 10 + (fr[k] - '0');
	r.num = neg ? -r.num : r.num;
	r.scale = (int)sig;
	r.pad = (int)((frac < 9 ? frac : 9) - sig);
	r.rc = FW_OK;
	return r;
}

static i128 pow10x(int k)
{
	i128 p = 1;
	while (k-- > 0)
		p *= 10;
	return p;
}

static i128 mag(i128 x)
{
	return x < 0 ? -x : x;
}

/* r * mul / div as a whole number: FW_EINVAL if it is not one, FW_ERANGE
 * past int64; *near when every step the parser takes (its digits with
 * their trailing zeros, times mul) stays under NEAR_EDGE. */
static int ref_scale(struct ref r, i128 mul, i128 div, int64_t *out, bool *near)
{
	i128 v = r.num * mul, den = pow10x(r.scale) * div;

	if (r.rc != FW_OK)
		return r.rc;
	*near = mag(v) < NEAR_EDGE && mag(v * pow10x(r.pad)) < NEAR_EDGE;
	if (v % den != 0)
		return FW_EINVAL;
	if (v / den > INT64_MAX || v / den < INT64_MIN)
		return FW_ERANGE;
	*out = (int64_t)(v / den);
	return FW_OK;
}

/* A parser's answer against the reference's (the two rules above). */
static void agree(int rc, int64_t v, int ref_rc, int64_t ref_v, bool near)
{
	if (rc == FW_OK && (ref_rc != FW_OK || v != ref_v))
		abort(); /* accepted what it should not, or misread it */
	if (ref_rc == FW_OK && near && rc != FW_OK)
		abort(); /* refused a plain value */
	if (rc != FW_OK && rc != FW_EINVAL && rc != FW_ERANGE)
		abort();
}

/* ---- the amount parsers ---- */

static void check_fixed(const char *s, int digits)
{
	struct ref r = ref_decimal(s);
	int64_t v = 0, rv = 0;
	bool near = false;
	int rc = fw_parse_fixed(s, digits, &v);
	int rrc = *r.end && r.rc == FW_OK ? FW_EINVAL : ref_scale(r, pow10x(digits), 1, &rv, &near);

	agree(rc, v, rrc, rv, near);
}

static void check_cpu(const char *s)
{
	size_t n = strlen(s);
	int64_t v = 0, rv = 0;
	bool near = false;
	int rc = fw_parse_cpu(s, &v), rrc;

	if (n >= 2 && s[n - 1] == 'm') { /* millicores */
		char w[WORD_MAX];
		struct ref r;
		memcpy(w, s, n - 1);
		w[n - 1] = '\0';
		r = ref_decimal(w);
		rrc = *r.end && r.rc == FW_OK ? FW_EINVAL : ref_scale(r, 1, 1, &rv, &near);
	} else {
		struct ref r = ref_decimal(s);
		rrc = *r.end && r.rc == FW_OK ? FW_EINVAL : ref_scale(r, 1000, 1, &rv, &near);
	}
	agree(rc, v, rrc, rv, near);
}

static void check_mib(const char *s)
{
	static const char *const suffix[] = { "", "Ki", "Mi", "Gi", "Ti", "Pi" };
	struct ref r = ref_decimal(s);
	int64_t v = 0, rv = 0;
	bool near = false;
	int rc = fw_parse_mib(s, &v), rrc = FW_EINVAL;

	for (int k = 0; k < 6 && r.rc != FW_EINVAL; k++)
		if (!strcmp(r.end, suffix[k])) /* in KiB: "" is MiB */
			rrc = ref_scale(r, k == 0 ? 1024 : (i128)1 << (10 * (k - 1)), 1024, &rv, &near);
	agree(rc, v, rrc, rv, near);
}

static i128 unit_ms(char u)
{
	return u == 's' ? 1000 : u == 'm' ? 60000 : u == 'h' ? 3600000 : u == 'd' ? 86400000 : 0;
}

/* Number+unit segments (a bare number alone is seconds), summed. */
static int ref_duration(const char *s, int64_t *out, bool *near)
{
	i128 total = 0;
	const char *p = s;

	*near = true;
	if (!*s)
		return FW_EINVAL;
	while (*p) {
		struct ref r = *p == '+' || *p == '-' ? (struct ref){ FW_EINVAL, 0, 0, 0, p } : ref_decimal(p);
		i128 u = r.rc == FW_OK && !*r.end && p == s ? 1000 : unit_ms(*r.end);
		int64_t part = 0;
		bool n = false;
		int rc = r.rc != FW_OK ? r.rc : !u ? FW_EINVAL : ref_scale(r, u, 1, &part, &n);

		if (rc != FW_OK)
			return rc;
		total += part;
		*near = *near && n && mag(total) < NEAR_EDGE;
		p = *r.end ? r.end + 1 : r.end;
	}
	if (total > INT64_MAX)
		return FW_ERANGE;
	*out = (int64_t)total;
	return FW_OK;
}

static void check_duration(const char *s)
{
	int64_t v = 0, rv = 0;
	bool near = false;
	int rc = fw_parse_duration_ms(s, &v), rrc = ref_duration(s, &rv, &near), crc;
	double secs = 0;
	bool neg = *s == '-', ok = fw_cli_duration(s, &secs);

	agree(rc, v, rrc, rv, near);
	crc = fw_parse_duration_ms(s + neg, &v);
	if (ok != (crc == FW_OK || crc == FW_ERANGE))
		abort(); /* the command line's durations are the config's */
	if (ok && crc == FW_OK && secs != (neg ? -1 : 1) * ((double)v / 1000))
		abort();
	if (ok && crc == FW_ERANGE && secs != (neg ? -HUGE_VAL : HUGE_VAL))
		abort();
}

static void check_bool(const char *s)
{
	static const char *const spell[] = { "true", "True", "TRUE", "false", "False", "FALSE" };
	bool b = false;
	int rc = fw_parse_bool(s, &b), k = 0;

	while (k < 6 && strcmp(s, spell[k]))
		k++;
	if ((rc == FW_OK) != (k < 6) || (k < 6 && b != (k < 3)))
		abort();
}

/* ---- the command-line words ---- */

/* The number is the prefix strtod reads, in the documented forms only,
 * and, when it is the whole word, fw_parse_fixed's (9 decimals) value. */
static void check_decimal(const char *s)
{
	const char *end = NULL, *p = s + (*s == '-');
	double x = 0;
	int64_t fx;
	int points = 0;
	char w[WORD_MAX];

	if (!fw_cli_decimal(s, &x, &end))
		return;
	if (end <= p || end > s + strlen(s) || !isfinite(x))
		abort();
	for (const char *c = p; c < end; c++)
		points += *c == '.';
	if (points > 1 || strspn(p, "0123456789.") < (size_t)(end - p))
		abort(); /* digits and at most one point, nothing else */
	memcpy(w, s, (size_t)(end - s));
	w[end - s] = '\0';
	if (strtod(w, NULL) != x)
		abort();
	if (!*end && fw_parse_fixed(s, 9, &fx) == FW_OK && fabs((double)fx / 1e9 - x) > 1e-9 * fmax(1, fabs(x)))
		abort();
}

/* What the --server base leaves out is slashes and at most one "/v1";
 * it ends in no slash but those of "scheme://". */
static void check_server(const char *s)
{
	size_t n = fw_cli_server_base(s), len = strlen(s), k = 0;
	const char *scheme = strstr(s, "://");
	size_t keep = scheme ? (size_t)(scheme - s) + 3 : 0;
	char rest[WORD_MAX];

	if (n > len || n < keep || (n > keep && s[n - 1] == '/') || (n < len && s[n] != '/'))
		abort();
	for (const char *c = s + n; *c; c++)
		if (*c != '/')
			rest[k++] = *c;
	rest[k] = '\0';
	if (k && strcmp(rest, "v1"))
		abort();
}

/* The word, then candidates one a line (at most 15). */
static void check_hint(char *s)
{
	const char *cands[16];
	char buf[24], *nl = strchr(s, '\n');
	int k = 0;
	const char *pick, *name;

	if (!nl)
		return;
	*nl = '\0';
	for (char *c = nl + 1; c && k < 15; k++) {
		cands[k] = c;
		if ((c = strchr(c, '\n')))
			*c++ = '\0';
	}
	cands[k] = NULL;
	pick = fw_cli_nearest(s, cands);
	name = fw_cli_nearest_name(s, cands);
	for (int i = 0; i < 2; i++) {
		const char *p = i ? name : pick;
		int j = 0;
		while (p && j < k && cands[j] != p)
			j++;
		if (p && (j == k || !strcmp(p, s)))
			abort(); /* one of the candidates, and not the word itself */
	}
	fw_cli_hint(s, cands, buf, sizeof buf);
	if (!memchr(buf, '\0', sizeof buf) || (pick == NULL) != (buf[0] == '\0'))
		abort();
}

static void check_split(char *s)
{
	char *v, why[64];
	static const char *const bare[] = { "--json", "--watch", NULL };
	size_t n = strlen(s);

	v = fw_cli_split_eq(s);
	if (v && (strncmp(s, "--", 2) || v <= s || v > s + n || strchr(s, '=')))
		abort(); /* cut at the first '=' of a long flag */
	if (fw_cli_joined_ok(s, v, bare, why, sizeof why) == 2 && !why[0])
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char w[WORD_MAX];
	size_t n = size > 1 ? size - 1 : 0;

	if (!size)
		return 0;
	if (n >= WORD_MAX)
		n = WORD_MAX - 1;
	memcpy(w, data + 1, n);
	w[n] = '\0';
	switch (data[0] % 12) {
	case 0: check_fixed(w, 0); break;
	case 1: check_fixed(w, 3); break;
	case 2: check_fixed(w, 9); break;
	case 3: check_cpu(w); break;
	case 4: check_mib(w); break;
	case 5: check_duration(w); break;
	case 6: check_bool(w); break;
	case 7: check_decimal(w); break;
	case 8: check_server(w); break;
	case 9: check_hint(w); break;
	case 10: check_split(w); break;
	default: check_fixed(w, data[0] % 19); break;
	}
	return 0;
}
