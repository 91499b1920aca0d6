/*
 * codec.c — strict JSON <-> struct for the API documents (codec.h).
 *
 * The helpers at the top do one thing each: check an object's keys
 * against an allow-list, and read one member of one type with a range.
 * Every error names the member by its path.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_ranges.h"
#include "cliword.h"
#include "codec.h"

#define BAD(d, err, field, ...) fw_diag_set((d), (err), "", 0, 0, (field), __VA_ARGS__)

/* A job's checkpointInterval and maxRuntime, at most FW_API_SECS_MAX,
 * fit fw_job's 32-bit spans (snapshot.h). */
_Static_assert(FW_API_SECS_MAX <= FW_SPAN32_MAX, "a job's durations outgrow fw_job's 32-bit spans");

static const char *const rsv_names[] = {
#define FW__RSV_NAME(U, l) #l,
	FW_RSV_KINDS(FW__RSV_NAME)
#undef FW__RSV_NAME
};

const char *fw_rsv_kind_name(enum fw_rsv_kind k)
{
	return k >= 0 && k < FW_RSV_NKINDS ? rsv_names[k] : "?";
}

/* --- member readers ------------------------------------------------------ */
static void path_of(char *buf, size_t n, const char *path, const char *key)
{
	snprintf(buf, n, "%s%s%s", path, *path ? "." : "", key);
}

/* The allow-list as "a, b, c" into buf (n bytes; cut when longer). */
static void key_list(const char *const *allowed, char *buf, size_t n)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int i = 0; allowed[i] && at < n; i++)
		at += (size_t)snprintf(buf + at, n - at, "%s%s", i ? ", " : "", allowed[i]);
}

/* Words an operator brings from elsewhere (the config's YAML, Slurm,
 * the job's own answer) for a member the API names otherwise: the member,
 * and why (NULL: the word alone says it). */
static const struct {
	const char *word, *key, *why;
} FOREIGN_KEYS[] = {
	{ "resources", "deserved", "the config's resources.gpu.quota is the API's deserved.gpu" },
	{ "quota", "deserved", "the config's quota is the API's deserved" },
	{ "weight", "overQuotaWeight", NULL },
	{ "partition", "queue", "a Slurm partition is a fairway queue" },
	{ "time", "maxRuntime", "Slurm's --time is the job's own maxRuntime" },
	{ "timeLimit", "maxRuntime", "timeLimit is the daemon's answer; the job's own limit is maxRuntime" },
};

/* The hint for unknown key k of an object whose keys are allowed's: the
 * member a foreign word means here (FOREIGN_KEYS, when allowed has it),
 * else the allowed key k is a typo of; "" when neither. */
static void key_hint(const char *k, const char *const *allowed, char *hint, size_t n)
{
	const char *near = fw_cli_nearest(k, allowed); /* the CLI's rule for a mistyped flag */

	hint[0] = '\0';
	for (size_t f = 0; f < sizeof FOREIGN_KEYS / sizeof FOREIGN_KEYS[0]; f++) {
		int i = 0;
		if (strcmp(FOREIGN_KEYS[f].word, k))
			continue;
		while (allowed[i] && strcmp(allowed[i], FOREIGN_KEYS[f].key))
			i++;
		if (!allowed[i])
			continue;
		snprintf(hint, n, " (did you mean \"%s\"?%s%s)", allowed[i], FOREIGN_KEYS[f].why ? " " : "",
			 FOREIGN_KEYS[f].why ? FOREIGN_KEYS[f].why : "");
		return;
	}
	if (near)
		snprintf(hint, n, " (did you mean \"%s\"?)", near);
}

/* o is an object whose keys are all allowed's (NULL-terminated); an
 * unknown one is refused naming it, the member it means when it is a
 * typo of one or a word from elsewhere for one (key_hint), and every
 * allowed key. */
static int only_keys(json_t *o, const char *path, const char *const *allowed, struct fw_diag *d)
{
	const char *k;
	json_t *v;
	char f[128], keys[320], hint[112];

	if (!json_is_object(o))
		return BAD(d, FW_EINVAL, *path ? path : "body", "must be a JSON object");
	json_object_foreach(o, k, v) {
		int i = 0;
		while (allowed[i] && strcmp(allowed[i], k))
			i++;
		if (allowed[i])
			continue;
		path_of(f, sizeof f, path, *k ? k : "\"\"");
		key_list(allowed, keys, sizeof keys);
		key_hint(k, allowed, hint, sizeof hint);
		return BAD(d, FW_EINVAL, f, "unknown field \"%.40s%s\"%s; the valid fields%s%s are %s", k,
			   strlen(k) > 40 ? "..." : "", hint, *path ? " of " : "", path, keys);
	}
	return FW_OK;
}

static int get_str(json_t *o, const char *path, const char *key, bool req, char *dst, size_t n,
		   struct fw_diag *d)
{
	json_t *v = json_object_get(o, key);
	char f[128];

	path_of(f, sizeof f, path, key);
	if (!v)
		return req ? BAD(d, FW_EINVAL, f, "is required") : FW_OK;
	if (!json_is_string(v))
		return BAD(d, FW_EINVAL, f, "must be a string");
	if (json_string_length(v) >= n)
		return BAD(d, FW_ERANGE, f, "is longer than %zu bytes (it has %zu); shorten it", n - 1,
			   json_string_length(v));
	if (strlen(json_string_value(v)) != json_string_length(v))
		return BAD(d, FW_EINVAL, f, "must not contain NUL characters");
	memcpy(dst, json_string_value(v), json_string_length(v) + 1);
	return FW_OK;
}

int fw_codec_name_check(const char *name, const char *field, struct fw_diag *d)
{
	const char *why = fw_name_problem(name);

	if (!why)
		return FW_OK;
	return BAD(d, strlen(name) >= FW_NAME_MAX ? FW_ERANGE : FW_EINVAL, field, "%s", why);
}

/* A byte's name for a refusal: "a tab", "a newline", "a space", "byte
 * 0x1b". */
static const char *byte_name(unsigned char ch, char *buf, size_t n)
{
	switch (ch) {
	case '\t': return "a tab";
	case '\n': return "a newline";
	case '\r': return "a carriage return";
	case ' ': return "a space";
	default: snprintf(buf, n, "byte 0x%02x", ch); return buf;
	}
}

int fw_codec_token_parse(const char *buf, size_t len, char tok[FW_TOKEN_MAX], struct fw_diag *d)
{
	size_t n = 0;

	while (n < len && buf[n] != '\n' && buf[n] != '\r' && buf[n] != ' ' && buf[n] != '\t')
		n++;
	tok[0] = '\0';
	if (n == 0)
		return BAD(d, FW_EINVAL, "token", "the first line is %s; write the token alone on the first line",
			   len == 0 ? "empty (so is the file)" : buf[0] == '\n' || buf[0] == '\r' ? "empty"
							      : "blank where the token should start (a space or a tab)");
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)buf[i] < 0x21 || (unsigned char)buf[i] > 0x7e)
			return BAD(d, FW_EINVAL, "token",
				   "the token's byte %zu is 0x%02x, not printable ASCII, which is all a token may "
				   "hold; write letters, digits and punctuation (e.g. head -c 32 /dev/urandom | "
				   "base64)", i, (unsigned char)buf[i]);
	if (n >= FW_TOKEN_MAX)
		return BAD(d, FW_ERANGE, "token", "the token is longer than the %d bytes a token may have; write "
			   "a shorter one (e.g. head -c 32 /dev/urandom | base64)", FW_TOKEN_MAX - 1);
	memcpy(tok, buf, n);
	tok[n] = '\0';
	return FW_OK;
}

/* What a non-ASCII code point is, when a table line must not hold it:
 * C1 controls (U+0085 among them), line and paragraph separators,
 * spaces other than ASCII's, invisible formatting characters and the
 * bidirectional controls that reorder what a terminal shows; NULL for
 * any other. */
static const char *odd_char(long cp)
{
	if (cp >= 0x80 && cp <= 0x9f)
		return "a C1 control character";
	if (cp == 0x2028)
		return "a line separator";
	if (cp == 0x2029)
		return "a paragraph separator";
	if (cp == 0xa0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x202f || cp == 0x205f ||
	    cp == 0x3000)
		return "a non-ASCII space";
	if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200e || cp == 0x200f ||
	    cp == 0x61c)
		return "a bidirectional control";
	if ((cp >= 0x200b && cp <= 0x200d) || (cp >= 0x2060 && cp <= 0x2064) || cp == 0xfeff || cp == 0x180e)
		return "an invisible formatting character";
	return NULL;
}

int fw_codec_text_check(const char *text, const char *field, bool word, struct fw_diag *d)
{
	char b[64];
	const unsigned char *end = (const unsigned char *)text + strlen(text);

	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		const char *what = NULL, *name = b;
		int len;
		if (*p >= 0x80) {
			long cp = fw_utf8_at(p, (size_t)(end - p), &len);
			if (cp < 0)
				snprintf(b, sizeof b, "byte 0x%02x, which is not UTF-8", *p);
			else if ((what = odd_char(cp)))
				snprintf(b, sizeof b, "U+%04lX (%s)", cp, what);
			if (cp >= 0 && !what) {
				p += len - 1;
				continue;
			}
		} else if (*p >= 0x20 && *p != 0x7f && (!word || *p != ' ')) {
			continue;
		} else {
			name = byte_name(*p, b, sizeof b);
		}
		if (word)
			return BAD(d, FW_EINVAL, field,
				   "has %s at byte %td; it must be one word, without whitespace, control or formatting "
				   "characters (as a login name is)", name, (const char *)p - text);
		return BAD(d, FW_EINVAL, field,
			   "has %s at byte %td; write it on one line, without control or formatting characters "
			   "(a plain ASCII space between words)", name, (const char *)p - text);
	}
	return FW_OK;
}

static int get_name(json_t *o, const char *path, const char *key, bool req, char *dst, struct fw_diag *d)
{
	char f[128];
	int rc = get_str(o, path, key, req, dst, FW_NAME_MAX, d);

	if (rc || !json_object_get(o, key))
		return rc;
	path_of(f, sizeof f, path, key);
	return fw_codec_name_check(dst, f, d);
}

/* x as a message writes a number: a whole one in full (1000000, not
 * 1e+06, as a client flag takes it), others in the fewest digits, from
 * 15, that read back as x (0.001, 2.5; 100000000.0000004, not the
 * 100000000 of 15 digits that a refusal of its decimals would show). */
static const char *plain(double x, char *buf, size_t n)
{
	if (x == floor(x) && fabs(x) <= 1e18) {
		snprintf(buf, n, "%.0f", x);
		return buf;
	}
	for (int digits = 15; digits <= 17; digits++) {
		snprintf(buf, n, "%.*g", digits, x);
		if (strtod(buf, NULL) == x)
			break;
	}
	return buf;
}

/* What a member that should be a number is instead, for its refusal
 * (", not the string \"2h\" ..."); "" for a number.  The config takes
 * "2h" and "80Gi", so a string there is most often a unit: said so. */
static const char *not_a_number(json_t *v, char *b, size_t n)
{
	if (json_is_number(v))
		return "";
	if (json_is_string(v))
		snprintf(b, n, ", not the string \"%.40s%s\" (the API's numbers are plain JSON numbers, without a "
			 "unit: seconds, MiB, GPUs)", json_string_value(v), strlen(json_string_value(v)) > 40 ? "..." : "");
	else
		snprintf(b, n, ", not %s", json_is_boolean(v) ? "true or false" : json_is_null(v) ? "null"
					 : json_is_array(v) ? "a list" : "an object");
	return b;
}

static int get_num(json_t *o, const char *path, const char *key, bool req, double lo, double hi, double *dst,
		   struct fw_diag *d)
{
	json_t *v = json_object_get(o, key);
	char f[128], a[32], b[32], what[160];

	path_of(f, sizeof f, path, key);
	if (!v)
		return req ? BAD(d, FW_EINVAL, f, "is required") : FW_OK;
	if (!json_is_number(v))
		return BAD(d, FW_EINVAL, f, "must be a number%s", not_a_number(v, what, sizeof what));
	double x = json_number_value(v);
	if (!isfinite(x) || x < lo || x > hi)
		return BAD(d, FW_ERANGE, f, "must be between %s and %s", plain(lo, a, sizeof a), plain(hi, b, sizeof b));
	*dst = x;
	return FW_OK;
}

/* x, member key of path, in units of 1/scale into *dst, exactly: the
 * store keeps GPUs and CPUs in thousandths (milli-GPU, millicore; scale
 * 1000) and a queue's memory in whole MiB (scale 1), so a value finer
 * than that (2.5555 GPUs, 0.0001 CPU) would be rounded; it is refused
 * instead, naming the precision (`unit`), as the config and the client
 * refuse it (fw_parse_fixed).  The slack allows for binary doubles only
 * (2.555 * 1000 is 2554.9999999999995): a decimal read into a double and
 * scaled is off by at most about 2^-52 of itself, so twice that (and
 * 1e-6 near 0) still refuses 100000000.0000004 at scale 10^6. */
static int exact(double x, int64_t scale, const char *path, const char *key, const char *unit, int64_t *dst,
		 struct fw_diag *d)
{
	double m = x * (double)scale;
	int64_t r = (int64_t)llround(m);
	char f[128], b[32];
	int places = 0;

	if (fabs(m - (double)r) <= 1e-6 + fabs(m) * 0x1p-51) {
		*dst = r;
		return FW_OK;
	}
	for (int64_t s = scale; s >= 10; s /= 10)
		places++;
	path_of(f, sizeof f, path, key);
	if (scale == 1)
		return BAD(d, FW_EINVAL, f, "must be a whole number of %s; got %s", unit, plain(x, b, sizeof b));
	return BAD(d, FW_EINVAL, f, "must have at most %d decimals (%s); got %s", places, unit,
		   plain(x, b, sizeof b));
}

/* A queue's plain decimals (overQuotaWeight, gpuHourBudget) have at
 * most 6 decimals, as the config reads them (cfg_double: millionths,
 * docs/config.md); a finer one is refused, not rounded, as exact refuses
 * a finer amount. */
#define FINE_SCALE 1000000

/* A number from lo to hi, exact in units of 1/scale (exact), into *dst. */
static int get_exact(json_t *o, const char *path, const char *key, bool req, double lo, double hi, int64_t scale,
		     const char *unit, int64_t *dst, struct fw_diag *d)
{
	double x = 0;
	int rc = get_num(o, path, key, req, lo, hi, &x, d);

	if (rc || !json_object_get(o, key))
		return rc;
	return exact(x, scale, path, key, unit, dst, d);
}

/* A plain decimal from lo to hi with at most 6 decimals (FINE_SCALE),
 * into *dst as it was written. */
static int get_fine(json_t *o, const char *path, const char *key, double lo, double hi, const char *unit,
		    double *dst, struct fw_diag *d)
{
	int64_t fine;
	double x = *dst;
	int rc = get_num(o, path, key, false, lo, hi, &x, d);

	if (rc || !json_object_get(o, key) || (rc = exact(x, FINE_SCALE, path, key, unit, &fine, d)))
		return rc;
	*dst = x;
	return FW_OK;
}

/* v as a whole number from lo to hi into *dst: FW_EINVAL when it is not
 * one, FW_ERANGE when it is one out of range; the caller words the
 * message.  1.0 is whole too: many JSON encoders write every number so. */
static int whole(json_t *v, int64_t lo, int64_t hi, int64_t *dst)
{
	double r = json_number_value(v);

	if (!json_is_integer(v) && (!json_is_real(v) || r != floor(r)))
		return FW_EINVAL;
	if (json_is_real(v) && (r < (double)lo || r > (double)hi))
		return FW_ERANGE;
	json_int_t x = json_is_integer(v) ? json_integer_value(v) : (json_int_t)r;
	if (x < lo || x > hi)
		return FW_ERANGE;
	*dst = x;
	return FW_OK;
}

static int get_int(json_t *o, const char *path, const char *key, bool req, int64_t lo, int64_t hi,
		   int64_t *dst, struct fw_diag *d)
{
	json_t *v = json_object_get(o, key);
	char f[128], what[160];
	int rc;

	path_of(f, sizeof f, path, key);
	if (!v)
		return req ? BAD(d, FW_EINVAL, f, "is required") : FW_OK;
	if ((rc = whole(v, lo, hi, dst)) == FW_EINVAL)
		return BAD(d, rc, f, "must be a whole number%s", not_a_number(v, what, sizeof what));
	if (rc)
		return BAD(d, rc, f, "must be between %lld and %lld", (long long)lo, (long long)hi);
	return FW_OK;
}

static int get_bool(json_t *o, const char *path, const char *key, bool *dst, struct fw_diag *d)
{
	json_t *v = json_object_get(o, key);
	char f[128];

	if (!v)
		return FW_OK;
	path_of(f, sizeof f, path, key);
	if (!json_is_boolean(v))
		return BAD(d, FW_EINVAL, f, "must be true or false");
	*dst = json_is_true(v);
	return FW_OK;
}

/* --- the body ------------------------------------------------------------ */
/* jansson refuses a number that no double holds (1e400) or an integer past
 * 64 bits while it parses, so no member reader sees it and its error would
 * name only the body.  To name the member: put a marker string where the
 * number stood (je.position is the byte just past it) and let jansson
 * parse that copy; the member holding the marker, when exactly one does,
 * is the field.  Anything else (the copy does not parse, the marker is
 * the whole body or appears twice) names the body with the line and
 * column.  No second JSON parser: the scan only finds the number's first
 * byte. */
#define MARK "\x01" "fairway: the number out of range" "\x01"
#define MARK_JSON "\"\\u0001fairway: the number out of range\\u0001\""

struct mark_walk {
	char path[128]; /* of the member walked, as path_of spells it */
	char found[128];
	int hits;
};

static void mark_walk(json_t *v, struct mark_walk *w)
{
	size_t at = strlen(w->path), i;
	const char *k;
	json_t *x;

	if (json_is_string(v) && !strcmp(json_string_value(v), MARK)) {
		w->hits++;
		snprintf(w->found, sizeof w->found, "%s", w->path);
	}
	json_object_foreach(v, k, x) {
		snprintf(w->path + at, sizeof w->path - at, "%s%s", at ? "." : "", k);
		mark_walk(x, w);
	}
	json_array_foreach(v, i, x) {
		snprintf(w->path + at, sizeof w->path - at, "[%zu]", i);
		mark_walk(x, w);
	}
	w->path[at] = '\0';
}

/* The member of the body buf[0, len) whose number [start, end) jansson
 * refused, into w: true when exactly one member (not the body) is it. */
static bool overflow_member(const char *buf, size_t len, size_t start, size_t end, struct mark_walk *w)
{
	size_t n = len - (end - start) + sizeof MARK_JSON - 1;
	char *copy = malloc(n);
	json_t *o = NULL;

	if (copy) {
		memcpy(copy, buf, start);
		memcpy(copy + start, MARK_JSON, sizeof MARK_JSON - 1);
		memcpy(copy + start + sizeof MARK_JSON - 1, buf + end, len - end);
		o = json_loadb(copy, n, JSON_REJECT_DUPLICATES, NULL);
		free(copy);
	}
	memset(w, 0, sizeof *w);
	mark_walk(o, w);
	json_decref(o);
	return w->hits == 1 && w->found[0];
}

/* The first byte of the JSON number that ends at buf[end]: back over
 * digits, '.', an exponent and its sign, then one leading '-'. */
static size_t number_start(const char *buf, size_t end)
{
	size_t i = end;

	for (;;) {
		char c = i > 0 ? buf[i - 1] : '\0';
		if (c && strchr("0123456789.eE", c))
			i--;
		else if ((c == '-' || c == '+') && i >= 2 && (buf[i - 2] == 'e' || buf[i - 2] == 'E'))
			i--;
		else
			return c == '-' ? i - 1 : i;
	}
}

/* jansson's numeric overflow (je): 400 naming the member, or the body. */
static int overflow_bad(const char *buf, size_t len, const json_error_t *je, struct fw_diag *d)
{
	size_t end = je->position > 0 && (size_t)je->position <= len ? (size_t)je->position : 0;
	size_t start = number_start(buf, end);
	struct mark_walk w;

	if (start < end && overflow_member(buf, len, start, end, &w))
		return BAD(d, FW_ERANGE, w.found, "is out of range: %.*s%s does not fit a 64-bit integer or a double",
			   (int)(end - start > 24 ? 24 : end - start), buf + start, end - start > 24 ? "..." : "");
	return BAD(d, FW_ERANGE, "body",
		   "has a number out of range at line %d, column %d (%s): it does not fit a 64-bit integer or a double",
		   je->line, je->column, je->text);
}

int fw_codec_body(const char *buf, size_t len, json_t **out, struct fw_diag *d)
{
	json_error_t je;
	json_t *o;

	if (len > FW_API_MAX_BODY)
		return BAD(d, FW_ERANGE, "body", "is larger than %u bytes", FW_API_MAX_BODY);
	o = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (!o && json_error_code(&je) == json_error_numeric_overflow)
		return overflow_bad(buf, len, &je, d);
	if (!o)
		return BAD(d, FW_EINVAL, "body", "not valid JSON at byte %d: %s", je.position, je.text);
	if (!json_is_object(o)) {
		json_decref(o);
		return BAD(d, FW_EINVAL, "body", "must be a JSON object");
	}
	*out = o;
	return FW_OK;
}

/* --- resources ------------------------------------------------------------ */
#define GPU_MAX ((double)FW_API_GPUS_MAX)
#define CPU_MAX ((double)FW_API_CPUS_MAX)
#define MEM_MAX ((double)FW_API_MEMORY_MAX)

/* {"gpu": GPUs, "cpu": cores, "memory": MiB}; absent members keep dflt. */
static int get_res(json_t *o, const char *path, const char *key, int64_t dflt, bool allow_unlimited,
		   struct fw_res *r, struct fw_diag *d)
{
	static const char *const keys[] = { "gpu", "cpu", "memory", NULL };
	static const int64_t scale[FW_RES_COUNT] = { 1000, 1000, 1 };
	static const char *const unit[FW_RES_COUNT] = { "0.001 GPU", "0.001 CPU, a millicore", "MiB" };
	static const double max[FW_RES_COUNT] = { GPU_MAX, CPU_MAX, MEM_MAX };
	json_t *v = json_object_get(o, key);
	char f[128];
	int rc;

	for (int i = 0; i < FW_RES_COUNT; i++)
		r->v[i] = dflt;
	if (!v)
		return FW_OK;
	path_of(f, sizeof f, path, key);
	if ((rc = only_keys(v, f, keys, d)))
		return rc;
	for (int i = 0; i < FW_RES_COUNT; i++) {
		if (!json_object_get(v, keys[i]))
			continue;
		if (allow_unlimited && json_is_null(json_object_get(v, keys[i])))
			continue; /* null = unlimited */
		if ((rc = get_exact(v, f, keys[i], true, 0, max[i], scale[i], unit[i], &r->v[i], d)))
			return rc;
	}
	return FW_OK;
}

static json_t *dump_res(struct fw_res r, bool unlimited_null)
{
	static const double scale[FW_RES_COUNT] = { 1000, 1000, 1 };
	static const char *const keys[] = { "gpu", "cpu", "memory" };
	json_t *o = json_object();

	for (int i = 0; i < FW_RES_COUNT; i++) {
		if (r.v[i] == FW_UNLIMITED && unlimited_null)
			json_object_set_new(o, keys[i], json_null());
		else if (i == FW_RES_MEM)
			json_object_set_new(o, keys[i], json_integer(r.v[i]));
		else
			json_object_set_new(o, keys[i], json_real((double)r.v[i] / scale[i]));
	}
	return o;
}

/* --- queues --------------------------------------------------------------- */
static int get_weights(json_t *o, struct fw_queue_spec *q, struct fw_diag *d)
{
	static const char *const keys[] = { "gpu", "cpu", "memory", NULL };
	json_t *v = json_object_get(o, "overQuotaWeight");
	int rc;

	for (int i = 0; i < FW_RES_COUNT; i++)
		q->weight[i] = 1.0;
	if (!v)
		return FW_OK;
	if ((rc = only_keys(v, "overQuotaWeight", keys, d)))
		return rc;
	for (int i = 0; i < FW_RES_COUNT; i++)
		if ((rc = get_fine(v, "overQuotaWeight", keys[i], 0, FW_API_WEIGHT_MAX, "0.000001", &q->weight[i], d)))
			return rc;
	return FW_OK;
}

/* A table of GPUs per model, {"H100": 16, "A100": 2.5}, under key
 * ("gpuModelLimits", "gpuModelDeserved"): at most cap models, each a
 * name, each at least 0 GPUs.  `verb` says what the cap bounds. */
static int get_model_table(json_t *o, const char *key, const char *verb, int32_t cap, struct fw_spec_model_limit *t,
			   int32_t *n, struct fw_diag *d)
{
	json_t *v = json_object_get(o, key), *x;
	const char *model;
	char f[128];
	int rc;

	if (!v)
		return FW_OK;
	if (!json_is_object(v))
		return BAD(d, FW_EINVAL, key, "must be an object of GPU model to GPUs, e.g. {\"H100\": 16}");
	if (json_object_size(v) > (size_t)cap)
		return BAD(d, FW_ERANGE, key, "has %zu models; a queue may %s at most %d", json_object_size(v), verb,
			   (int)cap);
	json_object_foreach(v, model, x) {
		struct fw_spec_model_limit *m = &t[*n];
		path_of(f, sizeof f, key, model);
		if ((rc = fw_codec_name_check(model, f, d)) ||
		    (rc = get_exact(v, key, model, true, 0, GPU_MAX, 1000, "0.001 GPU", &m->gpus, d)))
			return rc;
		snprintf(m->model, sizeof m->model, "%s", model);
		(*n)++;
	}
	return FW_OK;
}

/* "gpuModelLimits": the GPUs of each model the queue's subtree may hold. */
static int get_model_limits(json_t *o, struct fw_queue_spec *q, struct fw_diag *d)
{
	return get_model_table(o, "gpuModelLimits", "limit", FW_API_MODEL_LIMITS, q->model_limits, &q->nmodel_limits,
			       d);
}

/* "gpuModelDeserved": which models the queue's deserved GPUs are, so at
 * most deserved.gpu in all (as fw_snapshot_validate checks). */
static int get_model_deserved(json_t *o, struct fw_queue_spec *q, struct fw_diag *d)
{
	int64_t sum = 0;
	int rc = get_model_table(o, "gpuModelDeserved", "deserve GPUs of", FW_API_MODEL_DESERVED,
				 q->model_deserved, &q->nmodel_deserved, d);

	for (int32_t i = 0; rc == FW_OK && i < q->nmodel_deserved; i++)
		sum += q->model_deserved[i].gpus;
	if (rc == FW_OK && sum > q->deserved.v[FW_RES_GPU])
		return BAD(d, FW_ERANGE, "gpuModelDeserved",
			   "its models' GPUs sum to %.3f, more than the queue's deserved.gpu %.3f: they say which "
			   "models the deserved GPUs are, so raise deserved.gpu or lower the entries",
			   sum / 1000.0, q->deserved.v[FW_RES_GPU] / 1000.0);
	return rc;
}

int fw_codec_queue_parse(json_t *o, const char *name_in_path, struct fw_queue_spec *q, struct fw_diag *d)
{
	static const char *const keys[] = { "name", "parent", "priority", "deserved", "limit",
					    "overQuotaWeight", "minRuntime", "defaultRuntime", "maxRuntime",
					    "defaultCheckpointInterval", "usage", "usageAt", "preemptible",
					    "gpuModelLimits", "gpuModelDeserved", "gpuHourBudget", "usageGpuHours",
					    "fairshare", "children", NULL }; /* the last three: a GET's, dropped */
	int64_t prio = 0, minrt = 0, uat = 0, defrt = 0, maxrt = 0, defcp = 0;
	double usage = 0, budget = 0, used_h = 0;
	bool pre = true;
	int rc;

	memset(q, 0, sizeof *q);
	if ((rc = only_keys(o, "", keys, d)) || (rc = get_name(o, "", "name", !name_in_path, q->name, d)) ||
	    (rc = get_name(o, "", "parent", false, q->parent, d)) ||
	    (rc = get_int(o, "", "priority", false, FW_API_PRIORITY_MIN, FW_API_PRIORITY_MAX, &prio, d)) ||
	    (rc = get_res(o, "", "deserved", 0, false, &q->deserved, d)) ||
	    (rc = get_res(o, "", "limit", FW_UNLIMITED, true, &q->limit, d)) || (rc = get_weights(o, q, d)) ||
	    (rc = get_int(o, "", "minRuntime", false, 0, FW_API_SECS_MAX, &minrt, d)) ||
	    (rc = get_int(o, "", "defaultRuntime", false, 0, FW_API_SECS_MAX, &defrt, d)) ||
	    (rc = get_int(o, "", "maxRuntime", false, 0, FW_API_SECS_MAX, &maxrt, d)) ||
	    (rc = get_int(o, "", "defaultCheckpointInterval", false, 0, FW_API_SECS_MAX, &defcp, d)) ||
	    (rc = get_num(o, "", "usage", false, 0, 1e18, &usage, d)) ||
	    (rc = get_int(o, "", "usageAt", false, 0, FW_API_TIME_MAX, &uat, d)) ||
	    (rc = get_fine(o, "", "gpuHourBudget", 0, FW_BUDGET_MAX_GPU_H, "0.000001 GPU-hour", &budget, d)) ||
	    (rc = get_num(o, "", "usageGpuHours", false, 0, 1e18, &used_h, d)) || /* a view's; dropped */
	    (rc = get_bool(o, "", "preemptible", &pre, d)) || (rc = get_model_limits(o, q, d)) ||
	    (rc = get_model_deserved(o, q, d)))
		return rc;
	q->nonpreemptible = !pre;
	if (name_in_path) {
		if (q->name[0] && strcmp(q->name, name_in_path))
			return BAD(d, FW_EINVAL, "name", "\"%s\" differs from the queue in the URL", q->name);
		if (strlen(name_in_path) >= FW_NAME_MAX)
			return BAD(d, FW_ERANGE, "name", "is longer than %d bytes", FW_NAME_MAX - 1);
		snprintf(q->name, sizeof q->name, "%s", name_in_path);
	}
	if (!strcmp(q->name, q->parent))
		return BAD(d, FW_ELOOP, "parent", "a queue cannot be its own parent");
	for (int i = 0; i < FW_RES_COUNT; i++) {
		static const char *const key[FW_RES_COUNT] = { "gpu", "cpu", "memory" }; /* get_res's */
		double scale = i == FW_RES_MEM ? 1 : 1000;
		char a[32], b[32];
		if (q->limit.v[i] != FW_UNLIMITED && q->limit.v[i] < q->deserved.v[i])
			return BAD(d, FW_EINVAL, "limit",
				   "limit.%s (%s) is below deserved.%s (%s): raise the limit, or lower deserved", key[i],
				   plain(q->limit.v[i] / scale, a, sizeof a), key[i], plain(q->deserved.v[i] / scale, b, sizeof b));
	}
	q->priority = (int32_t)prio;
	q->min_runtime_s = minrt;
	q->default_runtime_s = defrt;
	q->max_runtime_s = maxrt;
	q->default_checkpoint_s = defcp;
	q->gpu_hour_budget = budget;
	q->usage = usage;
	q->usage_at = uat;
	return FW_OK;
}

/* Round member key of o (a finite number) to 6 decimals when it has
 * more, noting "FIELD OLD -> NEW" in what; 1 when it did, else 0. */
static int round_fine(json_t *o, const char *path, const char *key, char *what, size_t n)
{
	json_t *v = json_object_get(o, key);
	double x = v ? json_number_value(v) : 0, r = round(x * FINE_SCALE) / FINE_SCALE;
	char f[128], a[32], b[32];
	size_t used = strlen(what);
	int64_t fine;

	if (!json_is_number(v) || !isfinite(x) || exact(x, FINE_SCALE, path, key, "", &fine, NULL) == FW_OK)
		return 0;
	path_of(f, sizeof f, path, key);
	json_object_set_new(o, key, json_real(r));
	if (used < n)
		snprintf(what + used, n - used, "%s%s %s -> %s", used ? "; " : "", f, plain(x, a, sizeof a),
			 plain(r, b, sizeof b));
	return 1;
}

int fw_codec_queue_round_fine(json_t *o, char *what, size_t n)
{
	static const char *const keys[] = { "gpu", "cpu", "memory" };
	json_t *w = json_object_get(o, "overQuotaWeight");
	int k = 0;

	if (n)
		what[0] = '\0';
	for (size_t i = 0; json_is_object(w) && i < sizeof keys / sizeof keys[0]; i++)
		k += round_fine(w, "overQuotaWeight", keys[i], what, n);
	return k + (json_is_object(o) ? round_fine(o, "", "gpuHourBudget", what, n) : 0);
}

static json_t *dump_model_table(const struct fw_spec_model_limit *t, int32_t n)
{
	json_t *m = json_object();

	for (int32_t i = 0; i < n; i++)
		json_object_set_new(m, t[i].model, json_real((double)t[i].gpus / 1000));
	return m;
}

json_t *fw_codec_queue_dump(const struct fw_queue_spec *q)
{
	json_t *w = json_pack("{s:f,s:f,s:f}", "gpu", q->weight[0], "cpu", q->weight[1], "memory", q->weight[2]);
	json_t *o = json_pack("{s:s,s:i,s:o,s:o,s:o,s:I,s:f,s:I}", "name", q->name, "priority", q->priority,
			      "deserved", dump_res(q->deserved, false), "limit", dump_res(q->limit, true),
			      "overQuotaWeight", w, "minRuntime", (json_int_t)q->min_runtime_s, "usage", q->usage,
			      "usageAt", (json_int_t)q->usage_at);
	if (o && q->parent[0])
		json_object_set_new(o, "parent", json_string(q->parent));
	if (o && q->nonpreemptible) /* true: left out, as older documents */
		json_object_set_new(o, "preemptible", json_false());
	if (o && q->default_runtime_s) /* 0: left out, as older documents */
		json_object_set_new(o, "defaultRuntime", json_integer(q->default_runtime_s));
	if (o && q->max_runtime_s)
		json_object_set_new(o, "maxRuntime", json_integer(q->max_runtime_s));
	if (o && q->default_checkpoint_s)
		json_object_set_new(o, "defaultCheckpointInterval", json_integer(q->default_checkpoint_s));
	if (o && q->gpu_hour_budget > 0) /* 0: none, left out */
		json_object_set_new(o, "gpuHourBudget", json_real(q->gpu_hour_budget));
	if (o && q->nmodel_limits) /* none: left out, as older documents */
		json_object_set_new(o, "gpuModelLimits", dump_model_table(q->model_limits, q->nmodel_limits));
	if (o && q->nmodel_deserved)
		json_object_set_new(o, "gpuModelDeserved", dump_model_table(q->model_deserved, q->nmodel_deserved));
	return o;
}

/* --- users' usage ------------------------------------------------------------ */
int fw_codec_user_use_parse(json_t *o, struct fw_user_use *u, struct fw_diag *d)
{
	static const char *const keys[] = { "queue", "user", "usage", "usageAt", NULL };
	int64_t at = 0;
	int rc;

	memset(u, 0, sizeof *u);
	if ((rc = only_keys(o, "", keys, d)) || (rc = get_name(o, "", "queue", true, u->queue, d)) ||
	    (rc = get_str(o, "", "user", true, u->user, sizeof u->user, d)) ||
	    (rc = get_num(o, "", "usage", true, 0, 1e18, &u->usage, d)) ||
	    (rc = get_int(o, "", "usageAt", true, 0, FW_API_TIME_MAX, &at, d)))
		return rc;
	u->usage_at = at;
	return FW_OK;
}

json_t *fw_codec_user_use_dump(const struct fw_user_use *u)
{
	return json_pack("{s:s,s:s,s:f,s:I}", "queue", u->queue, "user", u->user, "usage", u->usage, "usageAt",
			 (json_int_t)u->usage_at);
}

/* --- jobs ----------------------------------------------------------------- */
/* t's levels, largest domain first ("block, rack"), as sim/des.c's
 * slice_level lists them. */
static const char *level_list(const struct fw_topology *t, char *out, size_t n)
{
	size_t k = 0;

	out[0] = '\0';
	for (int i = 0; i < t->nlevels && k < n; i++)
		k += (size_t)snprintf(out + k, n - k, "%s%s", i ? ", " : "", t->level[i]);
	return out;
}

/* " (did you mean \"rack\"?)" into hint when name is a typo of one of
 * t's levels or "node", whatever its case (levels match exactly); "". */
static const char *level_hint(const struct fw_topology *t, const char *name, char *hint, size_t n)
{
	static const struct fw_topology none;
	const char *names[FW_MAX_LEVELS + 2], *near;

	fw_topology_level_names(t ? t : &none, names);
	hint[0] = '\0';
	if ((near = fw_cli_nearest_name(name, names)))
		snprintf(hint, n, " (did you mean \"%s\"?)", near);
	return hint;
}

static int get_level(json_t *o, const char *path, const char *key, const struct fw_topology *t, int8_t *lvl,
		     struct fw_diag *d)
{
	char name[FW_NAME_MAX] = "", f[128], list[FW_MAX_LEVELS * (FW_NAME_MAX + 2)], hint[96];
	int rc = get_str(o, path, key, false, name, sizeof name, d);

	*lvl = FW_LEVEL_NONE;
	if (rc || !name[0])
		return rc;
	if (!strcmp(name, "node")) {
		*lvl = FW_LEVEL_NODE;
		return FW_OK;
	}
	for (int i = 0; t && i < t->nlevels; i++)
		if (!strcmp(t->level[i], name)) {
			*lvl = (int8_t)i;
			return FW_OK;
		}
	path_of(f, sizeof f, path, key);
	if (!t || !t->nlevels)
		return BAD(d, FW_EINVAL, f, "\"%s\" is not a topology level of this cluster%s: it has none "
			   "(topology.levels of its --config); use \"node\" or leave it out", name,
			   level_hint(t, name, hint, sizeof hint));
	return BAD(d, FW_EINVAL, f, "\"%s\" is not a topology level of this cluster%s (its levels: %s); use one of "
		   "them or \"node\"", name, level_hint(t, name, hint, sizeof hint), level_list(t, list, sizeof list));
}

/* path.slice: {"size": N, "required": LEVEL}, the group's tasks in runs
 * of N, each inside one domain of LEVEL (snapshot.h "Slices"); N must
 * divide the group's count. */
static int get_slice(json_t *g, const char *path, const struct fw_topology *t, int32_t count, int32_t *size,
		     int8_t *lvl, struct fw_diag *d)
{
	static const char *const keys[] = { "size", "required", NULL };
	json_t *o = json_object_get(g, "slice");
	char sp[64], f[96];
	int64_t n = 0;
	int rc;

	*size = 0;
	if (!o)
		return FW_OK;
	path_of(sp, sizeof sp, path, "slice");
	if ((rc = only_keys(o, sp, keys, d)) || (rc = get_int(o, sp, "size", true, 1, FW_API_COUNT_MAX, &n, d)) ||
	    (rc = get_level(o, sp, "required", t, lvl, d)))
		return rc;
	if (*lvl == FW_LEVEL_NONE) {
		path_of(f, sizeof f, sp, "required");
		return BAD(d, FW_EINVAL, f, "is required: the level each slice keeps inside, e.g. \"rack\" or \"node\"");
	}
	if (count % n != 0) {
		path_of(f, sizeof f, sp, "size");
		return BAD(d, FW_EINVAL, f, "slices of %lld tasks for a group of %d; make count a multiple of size",
			   (long long)n, (int)count);
	}
	*size = (int32_t)n;
	return FW_OK;
}

static int get_selector(json_t *o, const char *path, struct fw_backend_job *bj, int *n, struct fw_diag *d);

static int get_group(json_t *g, int i, const struct fw_topology *levels, struct fw_backend_job *bj,
		     struct fw_diag *d)
{
	static const char *const keys[] = { "count", "gpus", "gpuFraction", "cpu", "memory", "gpuModel",
					    "nodeSelector", "slice", NULL };
	struct fw_task_group *t = &bj->job.groups[i];
	char p[32];
	int64_t count = 1, gpus = 0, mem = 0, frac = 1000, cpu = 0;
	int rc, nsel = 0;

	snprintf(p, sizeof p, "tasks[%d]", i);
	if ((rc = only_keys(g, p, keys, d)) || (rc = get_int(g, p, "count", false, 1, FW_API_COUNT_MAX, &count, d)) ||
	    (rc = get_int(g, p, "gpus", false, 0, FW_MAX_GPUS_PER_NODE, &gpus, d)) ||
	    (rc = get_exact(g, p, "gpuFraction", false, FW_API_GPU_FRACTION_MIN, 1.0, 1000, "0.001 of a GPU", &frac,
			    d)) ||
	    (rc = get_exact(g, p, "cpu", false, 0, CPU_MAX, 1000, "0.001 CPU, a millicore", &cpu, d)) ||
	    (rc = get_int(g, p, "memory", false, 0, FW_API_MEMORY_MAX, &mem, d)) ||
	    (rc = get_str(g, p, "gpuModel", false, t->gpu_model, sizeof t->gpu_model, d)) ||
	    (rc = get_selector(g, p, bj, &nsel, d)) ||
	    (rc = get_slice(g, p, levels, (int32_t)count, &bj->slice[i], &bj->slice_level[i], d)))
		return rc;
	if (frac < 1000 && gpus != 1) {
		char f[64];
		snprintf(f, sizeof f, "%s.gpuFraction", p);
		return BAD(d, FW_EINVAL, f, "a GPU fraction needs exactly one GPU per task (gpus: 1)");
	}
	bj->ngsel[i] = (uint8_t)nsel;
	t->count = (int32_t)count;
	t->gpus = (int32_t)gpus;
	t->gpu_milli = (int32_t)frac;
	t->cpu_milli = cpu;
	t->mem_mib = mem;
	return FW_OK;
}

static int get_groups(json_t *o, const struct fw_topology *levels, struct fw_backend_job *bj, struct fw_diag *d)
{
	json_t *a = json_object_get(o, "tasks");
	int rc;

	if (!a)
		return BAD(d, FW_EINVAL, "tasks", "is required: a list of task groups like [{\"count\": 1, \"gpus\": 8}]");
	if (!json_is_array(a) || json_array_size(a) < 1 || json_array_size(a) > FW_MAX_GROUPS)
		return BAD(d, FW_EINVAL, "tasks", "must be a list of 1 to %d task groups", FW_MAX_GROUPS);
	bj->job.ngroups = (int)json_array_size(a);
	for (int i = 0; i < bj->job.ngroups; i++)
		if ((rc = get_group(json_array_get(a, i), i, levels, bj, d)))
			return rc;
	return FW_OK;
}

static int label_cmp(const void *a, const void *b)
{
	return strcmp(((const struct fw_label *)a)->key, ((const struct fw_label *)b)->key);
}

/* path.nodeSelector (the job's: path ""): {"key": "value", ...}, each a
 * label name and a name or "" (or null: the label without a value), at
 * most FW_MAX_LABELS pairs, appended to bj->sel (the job's first, then
 * each group's: backend.h) and kept ascending by key so that alike
 * selectors compare equal; *n: how many. */
static int get_selector(json_t *o, const char *path, struct fw_backend_job *bj, int *n, struct fw_diag *d)
{
	json_t *m = json_object_get(o, "nodeSelector"), *v;
	int at = bj->nsel, rc;
	const char *k;
	char sp[48], f[128];

	for (int g = 0; g < FW_MAX_GROUPS; g++)
		at += bj->ngsel[g];
	*n = 0;
	if (!m)
		return FW_OK;
	path_of(sp, sizeof sp, path, "nodeSelector");
	if (!json_is_object(m) || json_object_size(m) > FW_MAX_LABELS)
		return BAD(d, FW_EINVAL, sp, "must be an object of at most %d labels, like {\"gpu\": \"h100\"}",
			   FW_MAX_LABELS);
	if (at + (int)json_object_size(m) > FW_BACKEND_SEL_MAX)
		return BAD(d, FW_ERANGE, sp, "the job's selectors (its own and its task groups') hold at most %d "
			   "labels in all; this one would make %d", FW_BACKEND_SEL_MAX, at + (int)json_object_size(m));
	json_object_foreach(m, k, v) {
		struct fw_label *l = &bj->sel[at + *n];
		const char *why = fw_name_problem(k);
		if (why)
			return BAD(d, strlen(k) >= FW_NAME_MAX ? FW_ERANGE : FW_EINVAL, sp,
				   "label \"%.40s%s\" %s", k, strlen(k) > 40 ? "..." : "", why);
		path_of(f, sizeof f, sp, k);
		if (!json_is_null(v) && !json_is_string(v))
			return BAD(d, FW_EINVAL, f, "must be a string (\"\" or null: the label without a value)");
		snprintf(l->key, sizeof l->key, "%s", k);
		if (json_is_string(v) && json_string_length(v) > 0 &&
		    (rc = fw_codec_name_check(json_string_value(v), f, d)))
			return rc;
		snprintf(l->value, sizeof l->value, "%s", json_is_string(v) ? json_string_value(v) : "");
		(*n)++;
	}
	qsort(&bj->sel[at], (size_t)*n, sizeof *bj->sel, label_cmp);
	return FW_OK;
}

/* --- job arrays ------------------------------------------------------------------------- */
#define ARRAY_FORMS "write \"array\": \"0-99\", \"0-99:2\" (every 2nd) or \"1,3,5-7\""

/* The decimal index at *p (0..FW_ARRAY_INDEX_MAX), *p moved past it;
 * -1 when there are no digits, -2 when it is too large. */
static int32_t array_index(const char **p)
{
	int64_t x = 0;
	const char *s = *p;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++)
		x = x > FW_ARRAY_INDEX_MAX ? x : x * 10 + (*s - '0');
	*p = s;
	return x > FW_ARRAY_INDEX_MAX ? -2 : (int32_t)x;
}

/* One element of the list at *p (A, A-B or A-B:STEP) into seen[]; *p
 * moved to the ',' or the end after it. */
static int array_element(const char **p, bool *seen, struct fw_diag *d)
{
	const char *at = *p;
	int32_t a = array_index(p), b = a, step = 1;

	if (a >= 0 && **p == '-' && (++*p, b = array_index(p)) >= 0 && **p == ':') {
		++*p;
		step = array_index(p);
	}
	if (a == -2 || b == -2)
		return BAD(d, FW_ERANGE, "array", "\"%.40s\": indices go from 0 to %d (at most %d tasks, Slurm's "
			   "default MaxArraySize); split a larger sweep into arrays of other names", at,
			   FW_ARRAY_INDEX_MAX, FW_ARRAY_INDEX_MAX + 1);
	if (**p == '%')
		return BAD(d, FW_EINVAL, "array", "a throttle (%%N: at most N tasks running at once) is not "
			   "supported, the daemon keeps no per-array limit; leave it out (a queue's limitGpus caps "
			   "what its jobs hold)");
	if (a < 0 || b < 0 || step <= 0 || (**p && **p != ','))
		return BAD(d, FW_EINVAL, "array", "\"%.40s\" is not an index list: " ARRAY_FORMS, at);
	if (b < a)
		return BAD(d, FW_EINVAL, "array", "\"%.40s\": the range ends before it starts; write the lower "
			   "index first (%d-%d)", at, b, a);
	for (int32_t i = a; i <= b; i += step)
		seen[i] = true;
	return FW_OK;
}

/* The list's item-th item (from 1) at p is empty: "1,,2", ",1", "1,". */
static int array_empty_item(const char *list, int item, struct fw_diag *d)
{
	return BAD(d, FW_EINVAL, "array", "\"%.40s\": item %d of the list is empty (a comma too many); remove the "
		   "extra comma: " ARRAY_FORMS, list, item);
}

/* o's "array" into seen[] (nothing when there is none). */
static int array_seen(json_t *o, bool *seen, struct fw_diag *d)
{
	json_t *v = json_object_get(o, "array");
	const char *list = json_string_value(v), *p = list;
	int rc;

	if (!v)
		return FW_OK;
	if (!p)
		return BAD(d, FW_EINVAL, "array", "must be a string of task indices: " ARRAY_FORMS);
	if (!*p)
		return BAD(d, FW_EINVAL, "array", "is empty: give the task indices, or leave \"array\" out to submit "
			   "one job; " ARRAY_FORMS);
	for (int item = 1;; item++) {
		if (*p == ',' || !*p)
			return array_empty_item(list, item, d);
		if ((rc = array_element(&p, seen, d)) != FW_OK)
			return rc;
		if (!*p++)
			return FW_OK;
	}
}

int fw_codec_array_parse(json_t *o, struct fw_job_array *a, struct fw_diag *d)
{
	bool seen[FW_ARRAY_INDEX_MAX + 1] = { false };
	int rc = array_seen(o, seen, d);

	a->n = 0;
	for (int32_t i = 0; rc == FW_OK && i <= FW_ARRAY_INDEX_MAX; i++)
		if (seen[i])
			a->idx[a->n++] = i;
	return rc;
}

/* A job's "array" is the API's to read (fw_codec_array_parse, POST
 * /v1/jobs): the job's parse only holds it to its form. */
static int array_valid(json_t *o, struct fw_diag *d)
{
	bool seen[FW_ARRAY_INDEX_MAX + 1] = { false };

	return array_seen(o, seen, d);
}

int fw_codec_job_parse(json_t *o, const struct fw_topology *levels, struct fw_backend_job *bj,
		       struct fw_diag *d)
{
	static const char *const keys[] = { "name", "queue", "user", "priority", "preemptible", "spread",
					    "runtime", "minMember", "requiredLevel", "preferredLevel",
					    "tasks", "exitCode", "checkpointInterval", "maxRuntime", "nodeSelector",
					    "array", NULL };
	struct fw_job *j = &bj->job;
	int64_t prio = 0, rt = 0, minm = 0, exit_code = 0, ckpt = 0, maxrt = 0;
	int rc, nsel;
	struct fw_label *room = bj->sel;

	memset(bj, 0, sizeof *bj);
	bj->sel = room;
	fw_job_init(j);
	j->preemptible = FW_JOB_PREEMPTIBLE_DEFAULT;
	if ((rc = only_keys(o, "", keys, d)) || (rc = get_name(o, "", "name", false, j->name, d)) ||
	    (rc = array_valid(o, d)) ||
	    (rc = get_name(o, "", "queue", true, bj->queue, d)) ||
	    (rc = get_str(o, "", "user", false, j->user, sizeof j->user, d)) ||
	    (rc = get_int(o, "", "priority", false, FW_API_PRIORITY_MIN, FW_API_PRIORITY_MAX, &prio, d)) ||
	    (rc = get_bool(o, "", "preemptible", &j->preemptible, d)) ||
	    (rc = get_bool(o, "", "spread", &j->spread, d)) ||
	    (rc = get_int(o, "", "runtime", false, 0, FW_API_SECS_MAX, &rt, d)) ||
	    (rc = get_int(o, "", "checkpointInterval", false, 0, FW_API_SECS_MAX, &ckpt, d)) ||
	    (rc = get_int(o, "", "maxRuntime", false, 0, FW_API_SECS_MAX, &maxrt, d)) ||
	    (rc = get_int(o, "", "minMember", false, 0, FW_API_MIN_MEMBER_MAX, &minm, d)) ||
	    (rc = get_int(o, "", "exitCode", false, 0, FW_API_EXIT_CODE_MAX, &exit_code, d)) ||
	    (rc = get_level(o, "", "requiredLevel", levels, &j->required_level, d)) ||
	    (rc = get_level(o, "", "preferredLevel", levels, &j->preferred_level, d)) ||
	    (rc = get_selector(o, "", bj, &nsel, d)) || (bj->nsel = nsel, rc = get_groups(o, levels, bj, d)))
		return rc;
	j->priority = (int32_t)prio;
	j->expected_runtime = rt;
	j->checkpoint_s = (int32_t)ckpt;
	j->max_runtime_s = (int32_t)maxrt; /* its own; its queues' bind too */
	j->min_member = (int32_t)minm;
	bj->exit_code = (int32_t)exit_code;
	if (j->min_member > fw_job_tasks(j))
		return BAD(d, FW_ERANGE, "minMember", "%d is more than the job's %d tasks", j->min_member,
			   fw_job_tasks(j));
	j->state = FW_JOB_PENDING;
	j->queue = -1;
	return FW_OK;
}

static const char *level_name(int8_t l, const struct fw_topology *t)
{
	if (l == FW_LEVEL_NODE)
		return "node";
	if (l >= 0 && t && l < t->nlevels)
		return t->level[l];
	return NULL;
}

static json_t *labels_dump(const struct fw_label *l, int n)
{
	json_t *m = json_object();

	for (int i = 0; m && i < n; i++)
		json_object_set_new(m, l[i].key, json_string(l[i].value));
	return m;
}

json_t *fw_codec_selector_dump(const struct fw_backend_job *bj)
{
	return labels_dump(bj->sel, bj->nsel);
}

json_t *fw_codec_group_selectors_dump(const struct fw_backend_job *bj)
{
	json_t *a = json_array();

	for (int g = 0; a && g < bj->job.ngroups; g++) {
		int n;
		const struct fw_label *l = fw_backend_group_sel(bj, g, &n);
		json_array_append_new(a, labels_dump(l, n));
	}
	return a;
}

json_t *fw_codec_group_slices_dump(const struct fw_backend_job *bj, const struct fw_topology *levels)
{
	json_t *a = json_array();

	for (int g = 0; a && g < bj->job.ngroups; g++) {
		const char *sl = bj->slice[g] ? level_name(bj->slice_level[g], levels) : NULL;
		json_array_append_new(a, sl ? json_pack("{s:i,s:s}", "size", bj->slice[g], "required", sl) : json_null());
	}
	return a;
}

/* Its task groups as a POST body gives them. */
static json_t *tasks_dump(const struct fw_backend_job *bj, const struct fw_topology *levels)
{
	const struct fw_job *j = &bj->job;
	json_t *tasks = json_array();

	for (int i = 0; tasks && i < j->ngroups; i++) {
		const struct fw_task_group *g = &j->groups[i];
		json_t *t = json_pack("{s:i,s:i,s:f,s:I}", "count", g->count, "gpus", g->gpus, "cpu",
				      g->cpu_milli / 1000.0, "memory", (json_int_t)g->mem_mib);
		if (g->gpu_milli != 1000)
			json_object_set_new(t, "gpuFraction", json_real(g->gpu_milli / 1000.0));
		if (g->gpu_model[0])
			json_object_set_new(t, "gpuModel", json_string(g->gpu_model));
		if (bj->ngsel[i]) { /* none: left out */
			int n;
			const struct fw_label *l = fw_backend_group_sel(bj, i, &n);
			json_object_set_new(t, "nodeSelector", labels_dump(l, n));
		}
		const char *sl = bj->slice[i] ? level_name(bj->slice_level[i], levels) : NULL;
		if (sl) /* none: left out */
			json_object_set_new(t, "slice", json_pack("{s:i,s:s}", "size", bj->slice[i], "required", sl));
		json_array_append_new(tasks, t);
	}
	return tasks;
}

int fw_codec_job_members(json_t *o, const struct fw_backend_job *bj, const struct fw_topology *levels)
{
	const struct fw_job *j = &bj->job;
	const char *rl = level_name(j->required_level, levels), *pl = level_name(j->preferred_level, levels);
	json_t *tasks = tasks_dump(bj, levels);

	if (!tasks || json_object_set_new(o, "preemptible", json_boolean(j->preemptible)) ||
	    json_object_set_new(o, "spread", json_boolean(j->spread)) ||
	    json_object_set_new(o, "runtime", json_integer(j->expected_runtime)) ||
	    json_object_set_new(o, "minMember", json_integer(j->min_member))) {
		json_decref(tasks);
		return FW_ENOMEM;
	}
	if (json_object_set_new(o, "tasks", tasks))
		return FW_ENOMEM;
	if (rl)
		json_object_set_new(o, "requiredLevel", json_string(rl));
	if (pl)
		json_object_set_new(o, "preferredLevel", json_string(pl));
	if (bj->exit_code)
		json_object_set_new(o, "exitCode", json_integer(bj->exit_code)); /* 0: left out */
	if (j->checkpoint_s)
		json_object_set_new(o, "checkpointInterval", json_integer(j->checkpoint_s)); /* 0: left out */
	if (j->max_runtime_s)
		json_object_set_new(o, "maxRuntime", json_integer(j->max_runtime_s)); /* 0: left out */
	if (bj->nsel) /* none: left out */
		json_object_set_new(o, "nodeSelector", fw_codec_selector_dump(bj));
	return FW_OK;
}

json_t *fw_codec_job_dump(const struct fw_backend_job *bj, const struct fw_topology *levels)
{
	const struct fw_job *j = &bj->job;
	json_t *o = json_pack("{s:s,s:s,s:s,s:i}", "name", j->name, "queue", bj->queue, "user", j->user, "priority",
			      j->priority);

	if (o && !j->name[0])
		json_object_del(o, "name"); /* not yet named: the daemon names it */
	if (o && fw_codec_job_members(o, bj, levels) != FW_OK) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* --- reservations ----------------------------------------------------------- */
static int get_kind(json_t *o, enum fw_rsv_kind *k, struct fw_diag *d)
{
	char s[32] = "";
	int rc = get_str(o, "", "kind", true, s, sizeof s, d);

	if (rc)
		return rc;
	for (int i = 0; i < FW_RSV_NKINDS; i++)
		if (!strcmp(s, rsv_names[i])) {
			*k = (enum fw_rsv_kind)i;
			return FW_OK;
		}
	return BAD(d, FW_EINVAL, "kind", "must be \"maintenance\", \"queue\" or \"job\"");
}

static int get_nodes(json_t *o, struct fw_reservation *r, struct fw_diag *d)
{
	json_t *a = json_object_get(o, "nodes");
	char f[32];

	if (!a || !json_is_array(a) || json_array_size(a) < 1 || json_array_size(a) > FW_RSV_MAX_NODES)
		return BAD(d, FW_EINVAL, "nodes", "must be a list of 1 to %d node names", FW_RSV_MAX_NODES);
	r->nnodes = (int32_t)json_array_size(a);
	for (int i = 0; i < r->nnodes; i++) {
		json_t *v = json_array_get(a, i);
		snprintf(f, sizeof f, "nodes[%d]", i);
		if (!json_is_string(v) || json_string_length(v) == 0 || json_string_length(v) >= FW_NAME_MAX ||
		    strlen(json_string_value(v)) != json_string_length(v))
			return BAD(d, FW_EINVAL, f, "must be a node name (1 to %d bytes)", FW_NAME_MAX - 1);
		memcpy(r->nodes[i], json_string_value(v), json_string_length(v) + 1);
	}
	return FW_OK;
}

/* A queue or job reservation without the name its kind needs: say what
 * the name is for (get_name's bare "is required" does not). */
static int kind_names(json_t *o, const struct fw_reservation *r, struct fw_diag *d)
{
	if (r->kind == FW_RSV_QUEUE && !json_object_get(o, "queue"))
		return BAD(d, FW_EINVAL, "queue",
			   "is required: a reservation of kind \"queue\" names the queue its nodes are held for");
	if (r->kind == FW_RSV_JOB && !json_object_get(o, "job"))
		return BAD(d, FW_EINVAL, "job",
			   "is required: a reservation of kind \"job\" names the pending job its nodes are held for");
	return FW_OK;
}

int fw_codec_reservation_parse(json_t *o, struct fw_reservation *r, struct fw_diag *d)
{
	static const char *const keys[] = { "id", "kind", "queue", "job", "nodes", "start", "end", "reason", NULL };
	int64_t start = 0, end = 0;
	int rc;

	memset(r, 0, sizeof *r);
	if ((rc = only_keys(o, "", keys, d)) || (rc = get_name(o, "", "id", false, r->id, d)) ||
	    (rc = get_kind(o, &r->kind, d)) || (rc = kind_names(o, r, d)) ||
	    (rc = get_name(o, "", "queue", r->kind == FW_RSV_QUEUE, r->queue, d)) ||
	    (rc = get_name(o, "", "job", r->kind == FW_RSV_JOB, r->job, d)) || (rc = get_nodes(o, r, d)) ||
	    (rc = get_int(o, "", "start", true, 0, FW_API_TIME_MAX, &start, d)) ||
	    (rc = get_int(o, "", "end", true, 0, FW_API_TIME_MAX, &end, d)) ||
	    (rc = get_str(o, "", "reason", false, r->reason, sizeof r->reason, d)))
		return rc;
	if (end <= start)
		return BAD(d, FW_ERANGE, "end", "must be after start");
	if (r->kind != FW_RSV_QUEUE && r->queue[0])
		return BAD(d, FW_EINVAL, "queue", "only a reservation of kind \"queue\" names a queue");
	if (r->kind != FW_RSV_JOB && r->job[0])
		return BAD(d, FW_EINVAL, "job", "only a reservation of kind \"job\" names a job");
	r->start = start;
	r->end = end;
	return FW_OK;
}

json_t *fw_codec_reservation_dump(const struct fw_reservation *r)
{
	json_t *nodes = json_array();
	for (int i = 0; i < r->nnodes; i++)
		json_array_append_new(nodes, json_string(r->nodes[i]));
	json_t *o = json_pack("{s:s,s:s,s:o,s:I,s:I,s:s}", "id", r->id, "kind", fw_rsv_kind_name(r->kind), "nodes",
			      nodes, "start", (json_int_t)r->start, "end", (json_int_t)r->end, "reason", r->reason);
	if (o && !r->id[0])
		json_object_del(o, "id"); /* not yet named: the daemon names it */
	if (o && r->kind == FW_RSV_QUEUE)
		json_object_set_new(o, "queue", json_string(r->queue));
	if (o && r->kind == FW_RSV_JOB)
		json_object_set_new(o, "job", json_string(r->job));
	return o;
}

/* --- health --------------------------------------------------------------- */
/* "incidents": up to FW_HEALTH_INCIDENTS times, oldest first (history.h). */
static int get_incidents(json_t *o, struct fw_health_report *h, struct fw_diag *d)
{
	json_t *a = json_object_get(o, "incidents");

	h->nincidents = 0;
	if (!a)
		return FW_OK;
	if (!json_is_array(a) || json_array_size(a) > FW_HEALTH_INCIDENTS)
		return BAD(d, FW_EINVAL, "incidents", "must be a list of at most %d times (Unix seconds)",
			   FW_HEALTH_INCIDENTS);
	for (size_t i = 0; i < json_array_size(a); i++) {
		json_t *t = json_array_get(a, i);
		char f[32];
		snprintf(f, sizeof f, "incidents[%zu]", i);
		if (!json_is_integer(t) || json_integer_value(t) < 0 || json_integer_value(t) > FW_API_TIME_MAX)
			return BAD(d, FW_ERANGE, f, "must be a time in Unix seconds, from 0 to %lld", FW_API_TIME_MAX);
		h->incident[h->nincidents++] = json_integer_value(t);
	}
	return FW_OK;
}

/* badGpus into h->bad_gpu_mask: indices of the node's gpus GPUs (gpus < 0:
 * not known, any the mask holds). */
static int get_bad_gpus(json_t *o, int32_t gpus, struct fw_health_report *h, struct fw_diag *d)
{
	json_t *bad = json_object_get(o, "badGpus");
	int32_t n = gpus < 0 || gpus > FW_MAX_GPUS_PER_NODE ? FW_MAX_GPUS_PER_NODE : gpus;

	h->bad_gpu_mask = 0;
	if (!bad)
		return FW_OK;
	if (!json_is_array(bad))
		return BAD(d, FW_EINVAL, "badGpus", "must be a list of GPU indices");
	for (size_t i = 0; i < json_array_size(bad); i++) {
		json_t *v = json_array_get(bad, i);
		char f[32], was[32];
		int64_t g;
		int rc = whole(v, 0, (int64_t)n - 1, &g);
		snprintf(f, sizeof f, "badGpus[%zu]", i);
		if (rc == FW_EINVAL)
			return BAD(d, rc, f, "must be a GPU index (a whole number)");
		if (rc && gpus < 0)
			return BAD(d, rc, f, "must be a GPU index from 0 to %d", n - 1);
		if (rc && n == 0)
			return BAD(d, rc, f, "node %s has no GPUs", h->node);
		if (rc) {
			if (json_is_integer(v))
				snprintf(was, sizeof was, "%lld", (long long)json_integer_value(v));
			else
				snprintf(was, sizeof was, "%g", json_real_value(v));
			return BAD(d, rc, f, "node %s has GPUs 0 to %d, not %s", h->node, n - 1, was);
		}
		if (h->bad_gpu_mask & (1u << g)) /* as the config refuses it */
			return BAD(d, FW_EINVAL, f, "GPU %lld is listed twice; list each GPU once", (long long)g);
		h->bad_gpu_mask |= 1u << g;
	}
	return FW_OK;
}

int fw_codec_health_parse(json_t *o, struct fw_health_report *h, struct fw_diag *d)
{
	return fw_codec_health_parse_node(o, -1, h, d);
}

int fw_codec_health_parse_node(json_t *o, int32_t gpus, struct fw_health_report *h, struct fw_diag *d)
{
	static const char *const keys[] = { "node", "healthy", "suspect", "badGpus", "reason", "at", "incidents", NULL };
	char node[FW_NAME_MAX] = "";
	int64_t at = h->at;
	int rc;

	if ((rc = only_keys(o, "", keys, d)) || (rc = get_str(o, "", "node", false, node, sizeof node, d)))
		return rc;
	if (!json_object_get(o, "healthy"))
		return BAD(d, FW_EINVAL, "healthy", "is required (true or false)");
	h->suspect = false;
	if (json_object_get(o, "suspect") && (rc = get_bool(o, "", "suspect", &h->suspect, d)))
		return rc;
	if ((rc = get_bool(o, "", "healthy", &h->healthy, d)) ||
	    (rc = get_str(o, "", "reason", false, h->reason, sizeof h->reason, d)) ||
	    (rc = get_int(o, "", "at", false, 0, FW_API_TIME_MAX, &at, d)) || (rc = get_incidents(o, h, d)))
		return rc;
	if (node[0] && strcmp(node, h->node))
		return BAD(d, FW_EINVAL, "node", "\"%s\" differs from the node in the URL", node);
	h->at = at;
	return get_bad_gpus(o, gpus, h, d);
}

json_t *fw_codec_health_dump(const struct fw_health_report *h)
{
	json_t *bad = json_array(), *inc = json_array();
	for (int g = 0; g < FW_MAX_GPUS_PER_NODE; g++)
		if (h->bad_gpu_mask & (1u << g))
			json_array_append_new(bad, json_integer(g));
	for (int32_t i = 0; i < h->nincidents && i < FW_HEALTH_INCIDENTS; i++)
		json_array_append_new(inc, json_integer(h->incident[i]));
	return json_pack("{s:s,s:b,s:b,s:o,s:s,s:I,s:o}", "node", h->node, "healthy", h->healthy, "suspect",
			 h->suspect, "badGpus", bad, "reason", h->reason, "at", (json_int_t)h->at, "incidents", inc);
}
