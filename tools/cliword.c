/* cliword.c — see cliword.h. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cliword.h"
#include "fairway/err.h"
#include "fairway/scalar.h"

char *fw_cli_split_eq(char *word)
{
	char *eq = strncmp(word, "--", 2) ? NULL : strchr(word, '=');

	if (!eq)
		return NULL;
	*eq = '\0';
	return eq + 1;
}

int fw_cli_joined_ok(const char *flag, const char *value, const char *const *bare, char *why,
		     size_t n)
{
	if (!value)
		return 0;
	for (; *bare; bare++)
		if (!strcmp(flag, *bare)) {
			snprintf(why, n, "%s takes no value (got \"%s=%s\")", flag, flag, value);
			return 2;
		}
	if (*value)
		return 0;
	snprintf(why, n, "%s= has an empty value; give %s VALUE or %s=VALUE", flag, flag, flag);
	return 2;
}

/* c in lower case when fold (ASCII letters only), as it is otherwise. */
static char folded(char c, bool fold)
{
	return fold && c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Edit distance with swaps of neighbours (optimal string alignment),
 * with ASCII case no edit when fold; words of 64 bytes or more are out
 * of reach (a large number). */
static int distance(const char *a, const char *b, bool fold)
{
	enum { W = 64 };
	size_t la = strlen(a), lb = strlen(b);
	int d[W + 1][W + 1];

	if (la >= W || lb >= W)
		return 1000;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			char x = folded(a[i - 1], fold), y = folded(b[j - 1], fold);
			int c = d[i - 1][j - 1] + (x != y);
			if (d[i - 1][j] + 1 < c)
				c = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < c)
				c = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && x == folded(b[j - 2], fold) && folded(a[i - 2], fold) == y &&
			    d[i - 2][j - 2] + 1 < c)
				c = d[i - 2][j - 2] + 1;
			d[i][j] = c;
		}
	return d[la][lb];
}

/* Does c begin with w? */
static bool extends(const char *c, const char *w)
{
	return !strncmp(c, w, strlen(w));
}

/* Is *c also one of the candidates before it? */
static bool listed_before(const char *const *cands, const char *const *c)
{
	for (const char *const *b = cands; b < c; b++)
		if (!strcmp(*b, *c))
			return true;
	return false;
}

/* The edits a word may be from its pick: 1 for a word of 6 bytes or
 * fewer, else 2; with flag (word begins "--"), 2 for one of 4 letters or
 * more after its "--" ("--sead" is "--seeds"), since the dashes it shares
 * with every candidate are no letters of its name to go by. */
static int reach_of(const char *word, bool flag)
{
	if (flag)
		return strlen(word + 2) >= 4 ? 2 : 1;
	return strlen(word) <= 6 ? 1 : 2;
}

/* How many bytes a and b begin with alike (ASCII case aside when fold). */
static size_t common_start(const char *a, const char *b, bool fold)
{
	size_t n = 0;

	while (a[n] && b[n] && folded(a[n], fold) == folded(b[n], fold))
		n++;
	return n;
}

/* Of the candidates best edits from a flag, the one that begins the most
 * like it ("--sead": "--seeds" rather than "--load"); NULL when two do. */
static const char *likest_start(const char *word, const char *const *cands, bool fold, int best)
{
	size_t most = 0;
	int ties = 0;
	const char *pick = NULL;

	for (const char *const *c = cands; c && *c; c++) {
		size_t n = common_start(word, *c, fold);
		if (distance(word, *c, fold) != best || listed_before(cands, c) || n < most)
			continue;
		ties = n == most ? ties + 1 : 1;
		most = n, pick = *c;
	}
	return ties == 1 ? pick : NULL;
}

/* fw_cli_nearest, with ASCII case no edit when fold; with flag,
 * fw_cli_hint's reach and its tie-break by the start. */
static const char *nearest(const char *word, const char *const *cands, bool fold, bool flag)
{
	int best = 1000, near = 0, ext = 0, reach;
	const char *pick = NULL, *pick_ext = NULL;

	flag = flag && !strncmp(word, "--", 2); /* fw_cli_hint's word may be a value: a policy's name */
	reach = reach_of(word, flag);

	for (const char *const *c = cands; c && *c; c++) {
		int k = distance(word, *c, fold);
		best = k < best ? k : best;
	}
	for (const char *const *c = cands; c && *c; c++) {
		if (distance(word, *c, fold) != best || listed_before(cands, c))
			continue;
		near++, pick = *c;
		if (extends(*c, word))
			ext++, pick_ext = *c;
	}
	if (near > 1) /* --gpu: --gpus rather than --cpu; a flag: --sead --seeds, not --load; otherwise a guess */
		pick = ext == 1 ? pick_ext : flag ? likest_start(word, cands, fold, best) : NULL;
	if (fold && pick && best == 0 && strcmp(pick, word))
		return pick; /* the same but for case: "Rack" is "rack" */
	return pick && best > 0 && best <= reach ? pick : NULL;
}

const char *fw_cli_nearest(const char *word, const char *const *cands)
{
	return nearest(word, cands, false, false);
}

const char *fw_cli_nearest_name(const char *word, const char *const *cands)
{
	return nearest(word, cands, true, false);
}

const char *fw_cli_hint(const char *word, const char *const *cands, char *buf, size_t n)
{
	const char *pick = nearest(word, cands, false, true);

	if (!pick) /* then by the same rule with ASCII case no edit: "FIFO" is fifo, "--Nodes" --nodes */
		pick = nearest(word, cands, true, true);
	if (n)
		buf[0] = '\0';
	if (pick)
		snprintf(buf, n, " (did you mean '%s'?)", pick);
	return buf;
}

bool fw_cli_decimal(const char *v, double *x, const char **end)
{
	const char *p = v + (*v == '-');
	size_t whole = strspn(p, "0123456789"), frac = 0;
	char *read;

	if (p[whole] == '.')
		frac = 1 + strspn(p + whole + 1, "0123456789");
	if (whole == 0 && frac < 2)
		return false; /* no digit: "", "-", ".", "inf" */
	*x = strtod(v, &read);
	*end = p + whole + frac;
	return read == *end && isfinite(*x);
}

bool fw_cli_duration(const char *v, double *secs)
{
	bool neg = *v == '-';
	int64_t ms;
	int rc = fw_parse_duration_ms(v + neg, &ms);

	if (rc != FW_OK && rc != FW_ERANGE)
		return false;
	*secs = rc == FW_ERANGE ? HUGE_VAL : (double)ms / 1000; /* past every caller's range */
	if (neg)
		*secs = -*secs;
	return true;
}

size_t fw_cli_server_base(const char *url)
{
	const char *scheme = strstr(url, "://");
	size_t keep = scheme ? (size_t)(scheme - url) + 3 : 0, len = strlen(url);

	while (len > keep && url[len - 1] == '/')
		len--;
	if (len >= keep + 3 && !strncmp(url + len - 3, "/v1", 3))
		len -= 3;
	while (len > keep && url[len - 1] == '/')
		len--;
	return len;
}

int fw_cli_vrefuse(FILE *f, const char *who, const char *fmt, va_list ap)
{
	fprintf(f, "%s: error: ", who);
	vfprintf(f, fmt, ap);
	fprintf(f, "\nrun `%s --help` for usage\n", who);
	return 2;
}
