/*
 * cmd_client.c — the API client: `fairway queues|jobs|nodes|reservations|
 * fairshare` and `fairway plan --server URL`, over libcurl.
 *
 * Each command is: parse flags (the common ones: --server, --token-file,
 * --json), build a request (method, path, JSON body), send it, then print
 * either the JSON as the server sent it (--json) or for people: a table
 * (a list) or words (one object, `show`).  An API error prints the
 * server's message with the field it names, and the flag that set the
 * field when a flag did (o->field_flags, query_flags: "field end (--end):
 * must be after start"), and exits 2 (4xx) or 1 (5xx, or the server
 * cannot be reached).  An answer that is not the API's (not a JSON
 * object, a redirect, a listing without its list) exits 1 saying so,
 * never as a table of nothing, and what the daemon sent reaches the
 * terminal without its control characters (take_reply, listing).  The
 * send is a seam (client_int.h), for tests/fuzz/fuzz_client.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <jansson.h>

#include "api_ranges.h" /* connectors/serve */
#include "codec.h"      /* connectors/serve: fw_codec_token_parse */
#include "cli.h"
#include "client_int.h"
#include "render.h"
#include "cmd_serve.h"
#include "fairway/scalar.h" /* fw_parse_fixed: the precision GPUs and CPUs are kept in */
#include "fairway/snapshot.h"
#include "fwconfig.h" /* fw_config_parse_mib: --memory as the config writes it */

struct opts {
	const char *server, *token_file, *cmd;
	bool json;
	const char *const (*field_flags)[2]; /* the body's fields the flags set: (field, flag), NULL-ended; NULL: none */
	const char *const (*query_flags)[2]; /* the query's arguments the flags set: (flag, argument), as query_path */
	int argc;             /* the command's own flags, with their values */
	char **argv;
	int npos;             /* the positional words: subcommand, NAME */
	char **pos;
	const char *sub;      /* the subcommand, once check_args knows it */
	fw__client_send_fn send; /* the transport (client_int.h): libcurl's, or a test's */
	void *ud;
};

static bool has_own_help(const char *cmd, const char *sub);

/* A usage error of o's command (fw_cli_usage_error's words), whose last
 * line points at the subcommand's own help when it has one: `fairway
 * jobs submit` without --queue says run `fairway jobs submit --help`. */
__attribute__((format(printf, 2, 3))) static int usage_error(const struct opts *o, const char *fmt, ...)
{
	bool own = has_own_help(o->cmd, o->sub);
	va_list ap;

	fprintf(stderr, "fairway %s: error: ", o->cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nrun `fairway %s%s%s --help` for usage\n", o->cmd, own ? " " : "", own ? o->sub : "");
	return 2;
}

/* --- transport ---------------------------------------------------------- */
static size_t on_data(char *p, size_t sz, size_t n, void *ud)
{
	struct fw__client_reply *r = ud;
	char *nb = realloc(r->body, r->len + sz * n + 1);
	if (!nb)
		return 0;
	memcpy(nb + r->len, p, sz * n);
	r->body = nb;
	r->len += sz * n;
	r->body[r->len] = '\0';
	return sz * n;
}

/* The admin token, read as the daemon reads its own (codec.h,
 * fw_codec_token_parse); 0, or 2 with what to do on stderr. */
static int read_token(const struct opts *o, char tok[FW_TOKEN_MAX])
{
	FILE *f = fopen(o->token_file, "r");
	char buf[FW_TOKEN_MAX + 1]; /* one byte more than a token: a longer one is refused, not cut */
	size_t len = f ? fread(buf, 1, sizeof buf, f) : 0;
	struct fw_diag d;

	if (f)
		fclose(f);
	if (!len) {
		fprintf(stderr, "fairway %s: error: cannot read the token from %s (pass --token-file, or set "
				"FAIRWAY_TOKEN_FILE; the daemon writes DIR/token on its first start)\n",
			o->cmd, o->token_file);
		return 2;
	}
	if (fw_codec_token_parse(buf, len, tok, &d) != FW_OK) {
		fprintf(stderr, "fairway %s: error: the token file %s: %s\n", o->cmd, o->token_file, d.msg);
		return 2;
	}
	return 0;
}

/* The flag that set the body's field `field` as the daemon names it
 * ("end", "tasks[0].gpus", "nodes[2]", "deserved.gpu"): the command's
 * entry for it or for a field it is under, or the flag of the query's
 * argument of that name ("reason": --reason); NULL when the body came
 * from no flag (--file) or none set it. */
static const char *flag_of(const struct opts *o, const char *field)
{
	for (const char *const (*q)[2] = o->query_flags; q && (*q)[0]; q++)
		for (int i = 0; !strcmp(field, (*q)[1]) && i + 1 < o->argc; i += 2)
			if (!strcmp(o->argv[i], (*q)[0])) /* given: not --me's ?user= */
				return (*q)[0];
	for (const char *const (*m)[2] = o->field_flags; m && (*m)[0]; m++) {
		size_t n = strlen((*m)[0]);
		if (!strncmp(field, (*m)[0], n) && (field[n] == '\0' || field[n] == '.' || field[n] == '['))
			return (*m)[1];
	}
	return NULL;
}

/* An API error on stderr: the status, the field the daemon names and the
 * flag that set it ("field end (--end): must be after start"), and its
 * message (the body as it came when it is not the API's error); a name
 * not found, where to find the names. */
static void api_error(const struct opts *o, long status, json_t *j, const char *body)
{
	json_t *e = json_object_get(j, "error");
	const char *field = json_string_value(json_object_get(e, "field")),
		   *msg = json_string_value(json_object_get(e, "message"));
	const char *fl = field && *field ? flag_of(o, field) : NULL;

	fprintf(stderr, "fairway %s: error: %ld: ", o->cmd, status);
	if (field && *field)
		fprintf(stderr, fl ? "field %s (%s): " : "field %s: ", field, fl);
	fprintf(stderr, "%s", msg ? msg : body ? body : "");
	if (status == 404 && field && !strcmp(field, "name") && msg && !strstr(msg, "lists them") &&
	    strcmp(o->cmd, "plan")) /* what to do: the names there are */
		fprintf(stderr, " (`fairway %s list%s` lists them)", o->cmd, !strcmp(o->cmd, "jobs") ? " --state all" : "");
	if (status == 401) /* the daemon's words are curl's (a header); the client's user needs the file it read */
		fprintf(stderr, " (this client sent the token in %s, which the daemon refused: give the file the "
				"daemon reads, its --token-file, by default STATE_DIR/token, with --token-file FILE "
				"or FAIRWAY_TOKEN_FILE)", o->token_file);
	fputc('\n', stderr);
}

/* The transport: one request over libcurl (fw__client_send_fn). */
static int curl_send(void *ud, const char *method, const char *url, const char *auth, const char *content_type,
		     const char *payload, struct fw__client_reply *r, char *why, size_t whylen)
{
	CURL *c = curl_easy_init();
	struct curl_slist *h = NULL;
	char ctype[64];
	CURLcode cc = CURLE_OUT_OF_MEMORY;

	(void)ud;
	if (auth)
		h = curl_slist_append(h, auth);
	if (content_type) {
		snprintf(ctype, sizeof ctype, "Content-Type: %s", content_type);
		h = curl_slist_append(h, ctype);
	}
	if (c) {
		curl_easy_setopt(c, CURLOPT_URL, url);
		curl_easy_setopt(c, CURLOPT_PATH_AS_IS, 1L); /* never squash "/../": paths are built, not typed */
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
		curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
		curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
		curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
		curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
		if (payload)
			curl_easy_setopt(c, CURLOPT_POSTFIELDS, payload);
		if ((cc = curl_easy_perform(c)) == CURLE_OK)
			curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
	}
	snprintf(why, whylen, "%s", curl_easy_strerror(cc));
	curl_slist_free_all(h);
	if (c)
		curl_easy_cleanup(c);
	return cc != CURLE_OK;
}

/* How many bytes of s (len bytes) at i are a control character: 1 for
 * C0 (below 0x20) and DEL, 2 for C1 in UTF-8 (U+0080..U+009F, 0xC2
 * 0x80..0x9F: CSI among them), 0 for none. */
static size_t control_at(const char *s, size_t len, size_t i)
{
	unsigned char c = (unsigned char)s[i];

	if (c < 0x20 || c == 0x7f)
		return 1;
	return c == 0xc2 && i + 1 < len && (unsigned char)s[i + 1] >= 0x80 && (unsigned char)s[i + 1] <= 0x9f ? 2 : 0;
}

/* s with every control character (control_at) as '?' per byte, in a new
 * string: what the daemon sends reaches the terminal, which must not take
 * a byte of it for a command (an escape sequence, a carriage return that
 * overwrites the line). */
static char *masked(const char *s, size_t len)
{
	char *m = malloc(len + 1);

	if (!m)
		return NULL;
	for (size_t i = 0, k; i < len; i += k ? k : 1) {
		k = control_at(s, len, i);
		m[i] = k ? '?' : s[i];
		if (k == 2)
			m[i + 1] = '?';
	}
	m[len] = '\0';
	return m;
}

static bool needs_mask(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (control_at(s, len, i))
			return true;
	return false;
}

/* j as the tables print it: a new reference to the same JSON, with each
 * string and member name that holds a control byte masked (masked()).
 * NULL when out of memory. */
static json_t *printable(json_t *j)
{
	const char *k;
	json_t *v, *o;
	size_t i;

	if (json_is_string(j)) {
		if (!needs_mask(json_string_value(j), json_string_length(j)))
			return json_incref(j);
		char *m = masked(json_string_value(j), json_string_length(j));
		o = m ? json_stringn(m, json_string_length(j)) : NULL;
		free(m);
		return o;
	}
	if (json_is_array(j)) {
		o = json_array();
		json_array_foreach(j, i, v)
			if (!o || json_array_append_new(o, printable(v)))
				return json_decref(o), NULL;
		return o;
	}
	if (!json_is_object(j))
		return json_incref(j);
	o = json_object();
	json_object_foreach(j, k, v) {
		char *mk = masked(k, strlen(k));
		if (!o || !mk || json_object_set_new(o, mk, printable(v)))
			return free(mk), json_decref(o), NULL;
		free(mk);
	}
	return o;
}

/* A reply that is not the API's: its status and the first line of its
 * body (80 bytes at most, masked), "no body" when empty. */
static void not_api(const struct opts *o, const struct fw__client_reply *r, const char *what)
{
	size_t n = r->body ? strcspn(r->body, "\r\n") : 0;
	char *first = masked(r->body ? r->body : "", n > 80 ? 80 : n);

	fprintf(stderr, "fairway %s: error: %s answered %ld with %s%s%s%s%s (is --server the URL of `fairway serve`, "
		"not a proxy's or another service's? a daemon of another version: `fairway --version` on both)\n",
		o->cmd, o->server, r->status, what, first && *first ? ": '" : "", first && *first ? first : "",
		n > 80 ? "..." : "", first && *first ? "'" : "");
	free(first);
}

/* The API's error object of a 4xx/5xx reply: {"error": {"message":
 * ..., ...}}; NULL when j is not one. */
static json_t *api_error_of(json_t *j)
{
	json_t *e = json_object_get(j, "error");
	return json_is_string(json_object_get(e, "message")) ? e : NULL;
}

/* The reply read: 0 with *out the JSON object of a 2xx, or 1 (not the
 * API's answer, 5xx) / 2 (4xx) with the error on stderr. */
static int take_reply(const struct opts *o, const struct fw__client_reply *r, json_t **out)
{
	json_t *raw = r->body ? json_loadb(r->body, r->len, 0, NULL) : NULL, *j = raw;

	if (raw && (!o->json || r->status >= 300)) { /* printed as words: no control byte reaches the terminal */
		j = printable(raw);
		json_decref(raw);
	}
	if (r->status >= 400 && api_error_of(j))
		api_error(o, r->status, j, NULL);
	else if (r->status >= 400)
		not_api(o, r, "an error that is not the fairway API's");
	else if (r->status < 200 || r->status >= 300)
		not_api(o, r, r->status >= 300 && r->status < 400 ? "a redirect, which fairway does not follow"
								  : "a status the fairway API never sends");
	else if (!json_is_object(j))
		not_api(o, r, !r->body || !r->len ? "no body" : j ? "JSON that is not an object" : "a body that is not JSON");
	else {
		*out = j;
		return 0;
	}
	json_decref(j);
	return r->status >= 400 && r->status < 500 ? 2 : 1;
}

/* Send; on success *out holds the reply's JSON object.
 * *status (when not NULL): the HTTP status, 0 when the daemon was not
 * reached, -1 when the token could not be read (nothing was sent). */
static int call_st(const struct opts *o, const char *method, const char *path, json_t *body, json_t **out,
		   long *status)
{
	struct fw__client_reply r = { 0, NULL, 0 };
	char url[2048], auth[FW_TOKEN_MAX + 32], tok[FW_TOKEN_MAX], why[256];
	char *payload = body ? json_dumps(body, JSON_COMPACT) : NULL;
	int rc = 1;

	*out = NULL;
	if (status)
		*status = 0;
	if (strcmp(method, "GET")) {
		if ((rc = read_token(o, tok))) {
			if (status)
				*status = -1;
			goto done;
		}
		snprintf(auth, sizeof auth, "Authorization: Bearer %s", tok);
	}
	snprintf(url, sizeof url, "%s%s", o->server, path);
	/* a PATCH body is a JSON merge patch (RFC 7396) */
	if (o->send(o->ud, method, url, strcmp(method, "GET") ? auth : NULL,
		    !payload ? NULL : strcmp(method, "PATCH") ? "application/json" : "application/merge-patch+json",
		    payload, &r, why, sizeof why)) {
		fprintf(stderr, "fairway %s: error: cannot reach %s: %s (is `fairway serve` running? --server URL)\n",
			o->cmd, o->server, why);
		rc = 1;
		goto done;
	}
	if (status)
		*status = r.status;
	rc = take_reply(o, &r, out);
done:
	free(payload);
	free(r.body);
	return rc;
}

static int call(const struct opts *o, const char *method, const char *path, json_t *body, json_t **out)
{
	return call_st(o, method, path, body, out, NULL);
}

/* --- output helpers ----------------------------------------------------------- */
/* Is the reply's r[key] a list the table can print, an array of
 * objects?  0, or 1 with the error on stderr (a daemon of another version
 * answers with other members: a table of nothing would be wrong).  An
 * optional list may be absent. */
static int listing(const struct opts *o, json_t *r, const char *key, bool optional)
{
	json_t *a = json_object_get(r, key), *x;
	size_t i;

	if (!a && optional)
		return 0;
	if (!json_is_array(a)) {
		fprintf(stderr, "fairway %s: error: %s answered without the list \"%s\" (%s): a daemon of another "
			"version? (`fairway --version` here and there; --json shows the answer as it came)\n", o->cmd,
			o->server, key, a ? "not an array" : "no such member");
		return 1;
	}
	json_array_foreach(a, i, x)
		if (!json_is_object(x)) {
			fprintf(stderr, "fairway %s: error: %s answered with %s[%zu] not an object: a daemon of another "
				"version? (`fairway --version` here and there; --json shows the answer as it came)\n",
				o->cmd, o->server, key, i);
			return 1;
		}
	return 0;
}

static void dump(json_t *j)
{
	json_dumpf(j, stdout, JSON_INDENT(2));
	fputc('\n', stdout);
}

static const char *str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s && *s ? s : "-";
}

static double num(json_t *o, const char *k)
{
	return json_number_value(json_object_get(o, k));
}

/* A set duration in seconds as the plan's tables write it, to the
 * second: "90s", "1m40s", "1h30m", "2h00m" (fairway/span.h). */
static const char *dur(double secs, char *buf, size_t n)
{
	return fw_span_format((fw_time)llround(secs), buf, n);
}

/* "in 5m", "12s ago", "in 26h03m", "now", "unknown": t relative to now,
 * as the plan writes a span (fairway/span.h: "+43m20s"), cut to
 * the minute from an hour on (7143 s is 1h59m, never rounded up to 2h;
 * 26 hours are 26h00m, not a day: one form, as the tables). */
static void when(char *buf, size_t n, json_t *t)
{
	long long d, a;
	char span[32];

	if (!json_is_integer(t) || json_integer_value(t) > FW_TIME_MAX || json_integer_value(t) < -FW_TIME_MAX) {
		snprintf(buf, n, "unknown"); /* not a time fairway writes: no overflow below */
		return;
	}
	d = (long long)json_integer_value(t) - (long long)time(NULL);
	a = d < 0 ? -d : d;
	fw_span_format((fw_time)(a < 3600 ? a : a - a % 60), span, sizeof span);
	if (a == 0)
		snprintf(buf, n, "now");
	else
		snprintf(buf, n, d < 0 ? "%s ago" : "in %s", span);
}

/* The daemon's time t (Unix seconds) as its texts write it, its UTC date
 * "2026-12-06T16:42:05Z" (fairway/span.h), beside when()'s "in 5m". */
static const char *utc(char *buf, size_t n, json_t *t)
{
	return fw_utc_format(json_is_integer(t) ? (int64_t)json_integer_value(t) : -1, buf, n);
}

/* --- argument helpers --------------------------------------------------------------- */
/* o->argv holds (flag, value) pairs, value NULL for a bare flag
 * (check_args).  A flag given twice: the last one counts. */
static const char *flag(struct opts *o, const char *name)
{
	const char *v = NULL;

	for (int i = 0; i + 1 < o->argc; i += 2)
		if (!strcmp(o->argv[i], name))
			v = o->argv[i + 1];
	return v;
}

static bool has(struct opts *o, const char *name)
{
	for (int i = 0; i + 1 < o->argc; i += 2)
		if (!strcmp(o->argv[i], name))
			return true;
	return false;
}

static const char *arg(struct opts *o, int k)
{
	return k < o->npos ? o->pos[k] : NULL;
}

static int need(struct opts *o, const char *what, const char *v)
{
	if (!v)
		return usage_error(o, "%s is required", what);
	return 0;
}

/* s percent-encoded into out (n bytes): every byte but letters, digits,
 * '-' and '_' becomes %XX, '.', '/' and '%' included.  false when it does
 * not fit. */
static bool encode(char *out, size_t n, const char *s)
{
	static const char hexd[] = "0123456789ABCDEF";
	size_t k = 0;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
			     c == '_';
		if (k + (plain ? 1 : 3) >= n)
			return false;
		if (plain) {
			out[k++] = (char)c;
		} else {
			out[k++] = '%';
			out[k++] = hexd[c >> 4];
			out[k++] = hexd[c & 15];
		}
	}
	out[k] = '\0';
	return true;
}

/* The URL path prefix + NAME + suffix, NAME encoded as exactly one path
 * segment: "../queues/q" is sent as "%2E%2E%2Fqueues%2Fq", which can
 * neither climb out of its segment nor reach another route; the daemon
 * refuses it as a name (400).  2 with a usage error when NAME is far too
 * long to be one. */
static int name_path(struct opts *o, char *path, size_t n, const char *prefix, const char *name, const char *suffix)
{
	char enc[512];

	if (!encode(enc, sizeof enc, name) || (size_t)snprintf(path, n, "%s%s%s", prefix, enc, suffix) >= n)
		return usage_error(o, "'%.40s...' is too long for a name (at most %d bytes)", name,
					  FW_NAME_MAX - 1);
	return 0;
}

/* The daemon's range of each number flag (api_ranges.h, as codec.c
 * checks it), said by the client rather than left to a 400 that names the
 * JSON member. */
static const struct num_range {
	const char *flag;
	double lo, hi;
} num_ranges[] = {
	{ "--priority", FW_API_PRIORITY_MIN, FW_API_PRIORITY_MAX },
	{ "--exit-code", 0, FW_API_EXIT_CODE_MAX },
	{ "--count", 1, FW_API_COUNT_MAX },
	{ "--min-member", 0, FW_API_MIN_MEMBER_MAX },
	{ "--gpus", 0, FW_MAX_GPUS_PER_NODE },
	{ "--memory", 0, (double)FW_API_MEMORY_MAX }, /* MiB */
	{ "--gpu-fraction", FW_API_GPU_FRACTION_MIN, 1 },
	{ "--cpu", 0, FW_API_CPUS_MAX },
	{ "--deserved-gpus", 0, FW_API_GPUS_MAX },
	{ "--limit-gpus", 0, FW_API_GPUS_MAX },
	{ "--weight", 0, FW_API_WEIGHT_MAX },
};

static const struct num_range *num_range(const char *fl)
{
	for (size_t i = 0; i < sizeof num_ranges / sizeof num_ranges[0]; i++)
		if (!strcmp(num_ranges[i].flag, fl))
			return &num_ranges[i];
	return NULL;
}

/* A range's bound as the messages write it: 16, 1000000, 0.001 (never
 * 1e+06, which the flags themselves refuse). */
static const char *bound(double x, char *buf, size_t n)
{
	snprintf(buf, n, x == floor(x) ? "%.0f" : "%g", x);
	return buf;
}

/* The daemon keeps GPUs and CPUs in thousandths (milli-GPU, millicore),
 * as the config does: a value with more decimals would be rounded there
 * (2.5555 saved as 2.556, 0.0001 as 0), so it is refused here, with the
 * precision, as the config and the API refuse it (fw_parse_fixed). */
static const struct milli_flag {
	const char *flag, *unit;
} milli_flags[] = {
	{ "--deserved-gpus", "0.001 GPU" }, { "--limit-gpus", "0.001 GPU" },
	{ "--gpu-fraction", "0.001 of a GPU" }, { "--cpu", "0.001 CPU, a millicore" },
	{ "--gpu-model-limits", "0.001 GPU" }, { "--gpu-model-deserved", "0.001 GPU" },
};

/* 0, or 2 when flag fl's number num (in its value v: "2.5", or
 * "H100=2.5" of a list) has more decimals than it is kept in. */
static int milli_ok(struct opts *o, const char *fl, const char *v, const char *num)
{
	int64_t m;

	for (size_t i = 0; i < sizeof milli_flags / sizeof milli_flags[0]; i++)
		if (!strcmp(fl, milli_flags[i].flag) && fw_parse_fixed(num, 3, &m) == FW_EINVAL)
			return usage_error(o, "%s %s: at most 3 decimals (%s)", fl, v, milli_flags[i].unit);
	return 0;
}

/* A number flag into obj[key]; 2 on a bad value.  The number is plain
 * decimal (fw_cli_decimal: no exponent, no hex, so --priority 0x10 is not
 * 16).  A whole-number flag refuses a fraction rather than cut it (--gpus
 * 0.5 would ask for none), and any number out of its range is refused
 * with the range. */
static int set_num(struct opts *o, json_t *obj, const char *key, const char *fl, bool integer)
{
	const struct num_range *r = num_range(fl);
	const char *v = flag(o, fl), *end;
	char a[32], b[32];
	double x;

	if (!v)
		return 0;
	if (!fw_cli_decimal(v, &x, &end) || *end)
		return usage_error(o, "%s '%s' is not a %s number in decimal digits (%s; no exponent or hex)",
					  fl, v, integer ? "whole" : "plain", integer ? "e.g. 16" : "e.g. 8 or 0.5");
	if (integer && x != floor(x))
		return usage_error(o, "%s %s: must be a whole number%s", fl, v,
					  !strcmp(fl, "--gpus") ? "; for a fraction of a GPU use --gpus 1 --gpu-fraction F "
								  "(e.g. 0.5: half of one GPU)" : "");
	if (r && (x < r->lo || x > r->hi))
		return usage_error(o, "%s %s: must be from %s to %s", fl, v, bound(r->lo, a, sizeof a),
					  bound(r->hi, b, sizeof b));
	if (milli_ok(o, fl, v, v))
		return 2;
	json_object_set_new(obj, key, integer ? json_integer((json_int_t)x) : json_real(x));
	return 0;
}

/* --memory into obj[key], MiB: MiB ("512") or a binary quantity as the
 * config writes memory (fw_config_parse_mib: "512Mi", "80Gi", "1.5Ti"),
 * from 0 to the daemon's bound; 2 on a bad value, saying the forms. */
static int set_memory(struct opts *o, json_t *obj, const char *key)
{
	const struct num_range *r = num_range("--memory");
	const char *v = flag(o, "--memory");
	char a[32], b[32];
	int64_t mib;
	int rc;

	if (!v)
		return 0;
	if ((rc = fw_config_parse_mib(v, &mib)) == FW_EINVAL)
		return usage_error(o, "--memory '%s' is not a memory amount; give MiB (512) or a binary "
					  "quantity (512Mi, 80Gi, 1Ti; decimal suffixes like G are not taken)", v);
	if (rc != FW_OK || mib < r->lo || mib > r->hi)
		return usage_error(o, "--memory %s: must be from %s to %s MiB", v, bound(r->lo, a, sizeof a),
					  bound(r->hi, b, sizeof b));
	json_object_set_new(obj, key, json_integer((json_int_t)mib));
	return 0;
}

#define SECS_MAX ((double)FW_API_SECS_MAX) /* the daemon's bound on a seconds member */

/* A seconds flag (--runtime, --checkpoint-interval, --min-runtime, ...)
 * into obj[key]: whole seconds, or a duration like 10m; 2 on a bad value. */
static int set_secs(struct opts *o, json_t *obj, const char *key, const char *fl)
{
	const char *v = flag(o, fl);
	double x;

	if (!v)
		return 0;
	if (!fw_cli_duration(v, &x))
		return usage_error(o, "%s '%s': expected seconds or a DURATION like 90s, 10m, 2h, 1d or 1h30m", fl, v);
	if (x != floor(x))
		return usage_error(o, "%s %s: must be a whole number of seconds", fl, v);
	if (x < 0 || x > SECS_MAX)
		return usage_error(o, "%s %s: must be from 0 to %lld seconds (365 days)", fl, v,
					  (long long)SECS_MAX);
	json_object_set_new(obj, key, json_integer((json_int_t)x));
	return 0;
}

#define TIME_MAX ((double)FW_API_TIME_MAX) /* the daemon's bound on a time, Unix seconds */

/* A reservation's time x (flag fl's value v) as the daemon takes it
 * (check_rsv in connectors/serve/api.c, by this machine's clock here):
 * within FW_API_HORIZON_S (10 years) of now either way, so --start 1000
 * (1970) or +10000000d is no typo taken; --end not past.  0, or 2. */
static int time_sane(struct opts *o, const char *fl, const char *v, double x)
{
	double now = (double)time(NULL), h = (double)FW_API_HORIZON_S;

	if (x < now - h || x > now + h)
		return usage_error(o, "%s %s: more than 10 years %s now; give +DURATION from now (+10m, "
					  "+2d) or a Unix time within 10 years of now (%.0f)", fl, v,
					  x < now ? "before" : "after", now);
	if (!strcmp(fl, "--end") && x <= now)
		return usage_error(o, "%s %s: is in the past (now is %.0f); a reservation must end in the "
					  "future", fl, v, now);
	return 0;
}

/* A time flag (--start, --end) into obj[key]: "+10m", "+2h", "+30s"
 * from now, or a Unix time in whole seconds; 2 on a bad value.  A number
 * with a unit but no "+" is refused rather than read as a Unix time
 * (--start 2h would be 1970), and so is a negative one. */
static int parse_time(struct opts *o, const char *fl, json_t *obj, const char *key)
{
	const char *v = flag(o, fl), *unit;
	double x;

	if (!v)
		return 0;
	unit = v + strspn(v, "0123456789.");
	if (*v == '+') {
		if (!(v[1] >= '0' && v[1] <= '9') || !fw_cli_duration(v + 1, &x))
			return usage_error(o, "%s '%s': expected +DURATION like +10m, +2h or +1h30m", fl, v);
		x = floor(x + (double)time(NULL));
	} else if (*v == '-')
		return usage_error(o, "%s %s: a time is not negative; give a Unix time in seconds, or "
					  "+DURATION from now like +10m", fl, v);
	else if (unit != v && !*unit && !strchr(v, '.'))
		x = strtod(v, NULL);
	else if (unit != v && *unit && fw_cli_duration(v, &x))
		return usage_error(o, "%s %s: a duration needs a leading + (%s from now: +%s), or give a "
					  "Unix time in seconds", fl, v, v, v);
	else
		return usage_error(o, "%s '%s': expected a Unix time in whole seconds or +DURATION like +10m",
					  fl, v);
	if (x > TIME_MAX)
		return usage_error(o, "%s %s: times go up to %.0f (Unix seconds)", fl, v, TIME_MAX);
	if (time_sane(o, fl, v, x))
		return 2;
	json_object_set_new(obj, key, json_integer((json_int_t)x));
	return 0;
}

/* With --file the body is the file, whole: a flag beside it would be
 * neither applied nor checked, so it is refused; 0, or 2 with a message
 * naming both flags. */
static int file_alone(struct opts *o, const char *what)
{
	for (int i = 0; i + 1 < o->argc; i += 2)
		if (strcmp(o->argv[i], "--file") && strcmp(o->argv[i], "--test-only")) /* --test-only: how to send it */
			return usage_error(o, "--file and %s: give the %s either as a file or as flags",
						  o->argv[i], what);
	return 0;
}

/* --file PATH's JSON document; NULL, with the reason on stderr, when it
 * cannot be read ("--file PATH: cannot read: No such file or directory")
 * or is not JSON (PATH:LINE:COL: what jansson says). */
static json_t *load_file(struct opts *o, const char *path)
{
	json_error_t e;
	struct stat st;
	FILE *f = fopen(path, "r");
	json_t *j;

	if (f && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) { /* opens, but reads nothing */
		fclose(f);
		f = NULL;
		errno = EISDIR;
	}
	if (!f) {
		fprintf(stderr, "fairway %s: error: --file %s: cannot read: %s\n", o->cmd, path, strerror(errno));
		return NULL;
	}
	j = json_loadf(f, 0, &e);
	fclose(f);
	if (!j)
		fprintf(stderr, "fairway %s: error: %s:%d:%d: %s\n", o->cmd, path, e.line, e.column, e.text);
	return j;
}

static json_t *csv_strings(const char *v)
{
	json_t *a = json_array();
	char *dup = strdup(v), *save = NULL;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save))
		json_array_append_new(a, json_string(t));
	free(dup);
	return a;
}

/* --- queues ---------------------------------------------------------------------------- */
/* A {"H100": 16, "A100": 2.5} member as H100=16,A100=2.5 into m; "-"
 * when none. */
static void model_list(json_t *q, const char *key, char *m, size_t n)
{
	size_t used = 0;
	const char *model;
	json_t *v;

	snprintf(m, n, "-");
	json_object_foreach(json_object_get(q, key), model, v) {
		int r = snprintf(m + used, n - used, "%s%s=%g", used ? "," : "", model, json_number_value(v));
		if (r < 0 || (size_t)r >= n - used)
			break;
		used += (size_t)r;
	}
}

/* GPU-hours in few characters: 0.00153, 12.5, 1235. */
static void gpu_hours(char *buf, size_t n, double h)
{
	if (h >= 100 && h < 1e12)
		snprintf(buf, n, "%.0f", h);
	else
		snprintf(buf, n, "%.3g", h);
}

/* MAX RUNTIME: the queue's own run-time limit as a duration (1h30m), "-" for
 * none (maxRuntime absent: 0).  GPU-H USED: the decayed usage of it and
 * the queues under it (usageGpuHours; "-" from a daemon that does not
 * say), which GPU-H BUDGET (gpuHourBudget, as set; "-" for none) holds. */
static void print_queue_row(json_t *q)
{
	json_t *lim = json_object_get(json_object_get(q, "limit"), "gpu");
	char l[32], des[160], m[160], maxrt[24] = "-", used[32] = "-", budget[32] = "-";
	if (json_is_number(lim))
		snprintf(l, sizeof l, "%.1f", json_number_value(lim));
	else
		snprintf(l, sizeof l, "-");
	if (num(q, "maxRuntime") > 0)
		dur(num(q, "maxRuntime"), maxrt, sizeof maxrt);
	if (json_is_number(json_object_get(q, "usageGpuHours")))
		gpu_hours(used, sizeof used, num(q, "usageGpuHours"));
	if (num(q, "gpuHourBudget") > 0)
		snprintf(budget, sizeof budget, "%.15g", num(q, "gpuHourBudget"));
	model_list(q, "gpuModelDeserved", des, sizeof des);
	model_list(q, "gpuModelLimits", m, sizeof m);
	printf("%-20s %-14s %8.1f %8s %9.1f %6.0f %11s %10s %12s  %-18s %s\n", str(q, "name"),
	       json_object_get(q, "parent") ? str(q, "parent") : "-", num(json_object_get(q, "deserved"), "gpu"), l,
	       num(json_object_get(q, "overQuotaWeight"), "gpu"), num(q, "priority"), maxrt, used, budget, des, m);
}

/* --gpu-hour-budget H (GPU-hours, decimals allowed; 0 removes it) into
 * q's "gpuHourBudget"; 2 on a bad value, with the daemon's range. */
static int set_budget(struct opts *o, json_t *q)
{
	const char *v = flag(o, "--gpu-hour-budget"), *end;
	double x;

	if (!v)
		return 0;
	if (!fw_cli_decimal(v, &x, &end) || *end)
		return usage_error(o, "--gpu-hour-budget '%.40s' is not a number of GPU-hours", v);
	if (x < 0 || x > FW_BUDGET_MAX_GPU_H)
		return usage_error(o, "--gpu-hour-budget %s: must be from 0 to %.0f GPU-hours (0 removes it)", v,
				   FW_BUDGET_MAX_GPU_H);
	json_object_set_new(q, "gpuHourBudget", json_real(x));
	return 0;
}

/* --preemptible true|false into q's "preemptible"; 2 on another word. */
static int set_preemptible(struct opts *o, json_t *q)
{
	const char *v = flag(o, "--preemptible");

	if (!v)
		return 0;
	if (strcmp(v, "true") && strcmp(v, "false"))
		return usage_error(o, "--preemptible '%.40s': true or false (false: the queue's running "
						  "jobs are never evicted by reclaim, preemption or consolidation)", v);
	json_object_set_new(q, "preemptible", json_boolean(!strcmp(v, "true")));
	return 0;
}

/* A flag's MODEL=GPUS list (H100=16,A100=2.5) into q's member key;
 * MODEL=none removes that model's entry and none alone all of them (null,
 * as a merge patch removes a member: queues set changes only the models
 * given); 2 on a malformed list, the message ending with `form`. */
static int set_model_table(struct opts *o, json_t *q, const char *name, const char *key, const char *form)
{
	const char *v = flag(o, name);
	json_t *m;
	char *dup, *save = NULL;

	if (!v)
		return 0;
	if (!strcmp(v, "none")) {
		json_object_set_new(q, key, json_null());
		return 0;
	}
	m = json_object();
	dup = strdup(v);
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(t, '=');
		const char *end = "";
		bool lift = eq && !strcmp(eq + 1, "none");
		double x = lift ? 0 : -1;
		if (!eq || eq == t || (!lift && (!fw_cli_decimal(eq + 1, &x, &end) || *end || x < 0))) {
			int rc = usage_error(o, "%s '%.60s': expected MODEL=GPUS pairs, e.g. H100=16,A100=8 %s",
						    name, t, form);
			free(dup);
			json_decref(m);
			return rc;
		}
		if (!lift && milli_ok(o, name, t, eq + 1)) {
			free(dup);
			json_decref(m);
			return 2;
		}
		*eq = 0;
		if (json_object_get(m, t)) { /* as the config and --node-selector refuse it: a typo, not an update */
			int rc = usage_error(o, "%s: GPU model '%.60s' is given twice; keep one", name, t);
			free(dup);
			json_decref(m);
			return rc;
		}
		json_object_set_new(m, t, lift ? json_null() : json_real(x));
	}
	free(dup);
	json_object_set_new(q, key, m);
	return 0;
}

/* --gpu-model-limits H100=16,A100=2.5 into q's "gpuModelLimits". */
static int set_model_limits(struct opts *o, json_t *q)
{
	return set_model_table(o, q, "--gpu-model-limits", "gpuModelLimits",
			       "(GPUs >= 0; MODEL=none lifts one), or none to lift them all");
}

/* --gpu-model-deserved H100=16 into q's "gpuModelDeserved". */
static int set_model_deserved(struct opts *o, json_t *q)
{
	return set_model_table(o, q, "--gpu-model-deserved", "gpuModelDeserved",
			       "(GPUs >= 0, at most --deserved-gpus in all; MODEL=none removes one), or none to "
			       "remove them all");
}

/* The queue's fields as queue_body sets them from its flags. */
static const char *const queue_flags[][2] = {
	{ "parent", "--parent" },
	{ "priority", "--priority" },
	{ "deserved", "--deserved-gpus" },
	{ "limit", "--limit-gpus" },
	{ "overQuotaWeight", "--weight" },
	{ "minRuntime", "--min-runtime" },
	{ "defaultRuntime", "--default-runtime" },
	{ "maxRuntime", "--max-runtime" },
	{ "defaultCheckpointInterval", "--default-checkpoint-interval" },
	{ "preemptible", "--preemptible" },
	{ "gpuModelLimits", "--gpu-model-limits" },
	{ "gpuModelDeserved", "--gpu-model-deserved" },
	{ "gpuHourBudget", "--gpu-hour-budget" },
	{ NULL, NULL },
};

static json_t *queue_body(struct opts *o, int *rc)
{
	const char *file = flag(o, "--file");
	json_t *q, *des = json_object(), *lim = json_object(), *w = json_object();

	*rc = 0;
	if (file) {
		json_decref(des), json_decref(lim), json_decref(w);
		if ((*rc = file_alone(o, "queue")))
			return NULL;
		if (!(q = load_file(o, file)))
			*rc = 2;
		return q;
	}
	q = json_object();
	o->field_flags = queue_flags; /* a 400 names the flag beside the field */
	if (flag(o, "--parent")) /* '' makes it a top-level queue (JSON null) */
		json_object_set_new(q, "parent", flag(o, "--parent")[0] ? json_string(flag(o, "--parent")) : json_null());
	if ((*rc = set_num(o, q, "priority", "--priority", true)) || (*rc = set_num(o, des, "gpu", "--deserved-gpus", false)) ||
	    (*rc = set_num(o, lim, "gpu", "--limit-gpus", false)) || (*rc = set_num(o, w, "gpu", "--weight", false)) ||
	    (*rc = set_secs(o, q, "minRuntime", "--min-runtime")) ||
	    (*rc = set_secs(o, q, "defaultRuntime", "--default-runtime")) ||
	    (*rc = set_secs(o, q, "maxRuntime", "--max-runtime")) ||
	    (*rc = set_secs(o, q, "defaultCheckpointInterval", "--default-checkpoint-interval")) ||
	    (*rc = set_preemptible(o, q)) || (*rc = set_model_limits(o, q)) ||
	    (*rc = set_model_deserved(o, q)) || (*rc = set_budget(o, q))) {
		json_decref(q), json_decref(des), json_decref(lim), json_decref(w);
		return NULL;
	}
	if (json_object_size(des))
		json_object_set_new(q, "deserved", des);
	else
		json_decref(des);
	if (json_object_size(lim))
		json_object_set_new(q, "limit", lim);
	else
		json_decref(lim);
	if (json_object_size(w))
		json_object_set_new(q, "overQuotaWeight", w);
	else
		json_decref(w);
	return q;
}

/* "LABEL: N s" for a queue's seconds member, "LABEL: none" for 0 or
 * absent. */
static void print_secs(const char *label, json_t *q, const char *key)
{
	char d[32];

	if (num(q, key) > 0)
		printf("%s: %s\n", label, dur(num(q, key), d, sizeof d));
	else
		printf("%s: none\n", label);
}

/* A queue's own settings (GET /v1/queues/{name}), as queues set takes
 * them. */
static void queue_settings(json_t *q)
{
	json_t *lim = json_object_get(json_object_get(q, "limit"), "gpu");
	char m[160], used[32] = "-";

	printf("queue: %s\n", str(q, "name"));
	printf("parent: %s\n", strcmp(str(q, "parent"), "-") ? str(q, "parent") : "- (a top-level queue)");
	printf("deserved GPUs: %g\n", num(json_object_get(q, "deserved"), "gpu"));
	printf(json_is_number(lim) ? "limit GPUs: %g\n" : "limit GPUs: none\n", json_number_value(lim));
	printf("weight: %g\n", num(json_object_get(q, "overQuotaWeight"), "gpu"));
	printf("priority: %.0f\n", num(q, "priority"));
	print_secs("minRuntime", q, "minRuntime");
	print_secs("maxRuntime", q, "maxRuntime");
	print_secs("defaultRuntime", q, "defaultRuntime");
	print_secs("defaultCheckpointInterval", q, "defaultCheckpointInterval");
	printf("preemptible: %s\n", json_is_false(json_object_get(q, "preemptible")) ? "false (its running jobs, and "
	       "those of the queues under it, are never evicted)" : "true");
	if (json_is_number(json_object_get(q, "usageGpuHours")))
		gpu_hours(used, sizeof used, num(q, "usageGpuHours"));
	if (num(q, "gpuHourBudget") > 0)
		printf("GPU-hour budget: %.15g (used %s)\n", num(q, "gpuHourBudget"), used);
	else
		printf("GPU-hour budget: none (used %s)\n", used);
	model_list(q, "gpuModelDeserved", m, sizeof m);
	printf("deserved by model: %s\n", m);
	model_list(q, "gpuModelLimits", m, sizeof m);
	printf("GPU model limits: %s\n", m);
}

/* A queue's fair share, allocated GPUs and demand as the last cycle's
 * plan has them (GET /v1/queues/NAME's "fairshare": null before the
 * first plan, or for a queue newer than it). */
static void queue_figures(json_t *q)
{
	json_t *f = json_object_get(q, "fairshare");
	char at[48];

	if (!json_is_object(f)) {
		printf("fair share: not known yet (the queue is newer than the last cycle)\n");
		return;
	}
	when(at, sizeof at, json_object_get(f, "at"));
	printf("fair share: %.1f GPUs (guaranteed %.1f, over quota %.1f) as of the last plan (%s); `fairway "
	       "fairshare explain %s` says why\nallocated: %.1f GPUs\ndemand: %.1f GPUs\n",
	       num(f, "fairShare"), num(f, "guaranteed"), num(f, "overQuota"), at, str(q, "name"), num(f, "allocated"),
	       num(f, "demand"));
}

/* The queues whose parent it is (GET /v1/queues/NAME's "children"). */
static void queue_children(json_t *q)
{
	json_t *c;
	size_t i;

	printf("children:");
	json_array_foreach(json_object_get(q, "children"), i, c)
		printf(" %s", json_string_value(c));
	printf(json_array_size(json_object_get(q, "children")) ? "\n" : " none (a leaf queue: jobs are submitted to it)\n");
}

/* `fairway queues show NAME`: the queue in words (--json: the API's
 * JSON), from one GET, so its settings, the last plan's figures and its
 * children are of one moment. */
static void queue_show(json_t *q)
{
	queue_settings(q);
	queue_figures(q);
	queue_children(q);
}

/* What a change did, in a line: a create (PUT) that met a queue of that
 * name replaced it whole (200, not 201), so the settings it was not given
 * went back to their defaults; that is said, with the way to change only
 * some of them, rather than the same "saved" as a new queue's. */
static void print_queue_saved(const char *name, const char *sub, long status, json_t *q)
{
	bool top = !json_object_get(q, "parent");

	if (!strcmp(sub, "delete"))
		printf("%s: deleted\n", name);
	else if (strcmp(sub, "create"))
		printf("%s: saved\n", name);
	else if (status == 201)
		printf("%s: created\n", name);
	else
		printf("%s: replaced: the queue existed, and every setting not given took its default%s; `fairway "
		       "queues show %s` shows it now; `fairway queues set` changes only the flags given\n", name,
		       top ? " (no parent given: now top-level)" : "", name);
}

static int cmd_queues(struct opts *o)
{
	const char *sub = arg(o, 0) ? arg(o, 0) : "list", *name = arg(o, 1);
	char path[256];
	json_t *r = NULL, *body = NULL;
	long st = 0;
	int rc;

	if (!strcmp(sub, "list")) {
		if ((rc = call(o, "GET", "/v1/queues", NULL, &r)))
			return rc;
		if (o->json)
			dump(r);
		else if ((rc = listing(o, r, "queues", false))) {
			json_decref(r);
			return rc;
		} else {
			size_t i;
			json_t *q;
			printf("%-20s %-14s %8s %8s %9s %6s %11s %10s %12s  %-18s %s\n", "QUEUE", "PARENT", "DESERVED",
			       "LIMIT", "OQ-WEIGHT", "PRIO", "MAX RUNTIME", "GPU-H USED", "GPU-H BUDGET",
			       "DESERVED BY MODEL", "GPU MODEL LIMITS");
			json_array_foreach(json_object_get(r, "queues"), i, q)
				print_queue_row(q);
		}
		json_decref(r);
		return 0;
	}
	if ((rc = need(o, "a queue NAME", name)) || (rc = name_path(o, path, sizeof path, "/v1/queues/", name, "")))
		return rc;
	if (!strcmp(sub, "show"))
		rc = call(o, "GET", path, NULL, &r);
	else if (!strcmp(sub, "delete"))
		rc = call(o, "DELETE", path, NULL, &r);
	else if (!strcmp(sub, "set") || !strcmp(sub, "create")) {
		/* set changes only the members given (PATCH, a merge on the
		 * daemon); create sends the whole queue (PUT) */
		if (!(body = queue_body(o, &rc)))
			return rc ? rc : 2;
		if (!strcmp(sub, "set") && !flag(o, "--file") && json_object_size(body) == 0) {
			json_decref(body); /* an empty PATCH would change nothing and print "saved" */
			return usage_error(o, "nothing to change: give at least one of --parent, "
						  "--deserved-gpus, --limit-gpus, --weight, --priority, --min-runtime, "
						  "--default-runtime, --max-runtime, --default-checkpoint-interval, "
						  "--preemptible, --gpu-model-limits, --gpu-model-deserved, "
						  "--gpu-hour-budget (or --file PATCH.json)");
		}
		rc = call_st(o, !strcmp(sub, "set") ? "PATCH" : "PUT", path, body, &r, &st);
	} else
		return usage_error(o, "unknown subcommand '%s'", sub);
	json_decref(body);
	if (rc)
		return rc;
	if (o->json)
		dump(r);
	else if (!strcmp(sub, "show"))
		queue_show(r);
	else
		print_queue_saved(name, sub, st, r);
	json_decref(r);
	return 0;
}

/* --- jobs -------------------------------------------------------------------------------- */
/* A job's GPUs as the plan counts them: "gpuAmount" when a task takes a
 * fraction of a GPU (0.5; "gpus" then counts the 1 GPU it touches), else
 * "gpus".  A whole number without decimals, a fraction to the milli-GPU
 * the daemon keeps (0.125), with no trailing zeros. */
static const char *job_gpus(json_t *j, char *buf, size_t n)
{
	json_t *a = json_object_get(j, "gpuAmount");
	char *e;

	snprintf(buf, n, "%.3f", a ? json_number_value(a) : num(j, "gpus"));
	for (e = buf + strlen(buf) - 1; *e == '0'; e--)
		*e = '\0';
	if (*e == '.')
		*e = '\0';
	return buf;
}

/* "GPU" or "GPUs" after job_gpus's text g: "1 GPU", "0.5 GPU", "8 GPUs". */
static const char *gpu_noun(const char *g)
{
	return !strcmp(g, "1") || !strncmp(g, "0.", 2) ? "GPU" : "GPUs";
}

/* The REASON column of `fairway jobs` as wide as its longest entry
 * (not_yet_considered is 18), at least 16. */
static int reason_width(json_t *jobs)
{
	size_t i;
	json_t *j;
	int w = 16;

	json_array_foreach(jobs, i, j) {
		int l = (int)strlen(str(j, "reason"));
		w = l > w ? l : w;
	}
	return w;
}

/* A job's row under the header of `fairway jobs`, its REASON column wr
 * wide.  START is when it started, or is expected to ("in 5m (expected
 * start)"; "unknown" alone when the daemon has no estimate). */
static void print_job_row(json_t *j, int wr)
{
	char w[32], ex[24] = "", g[32];
	const char *st = str(j, "state");
	if (!strcmp(st, "pending"))
		when(w, sizeof w, json_object_get(j, "expectedStart"));
	else if (json_object_get(j, "startTime"))
		when(w, sizeof w, json_object_get(j, "startTime"));
	else
		snprintf(w, sizeof w, "-"); /* it never started (cancelled while pending) */
	if (!strcmp(st, "pending") && json_is_integer(json_object_get(j, "expectedStart")))
		snprintf(ex, sizeof ex, "(expected start)");
	else if (!strcmp(st, "running"))
		snprintf(ex, sizeof ex, "(started)");
	else if (!strcmp(st, "failed"))
		snprintf(ex, sizeof ex, "(exit %.0f)", num(j, "exitCode"));
	else if (!strcmp(st, "timeout"))
		snprintf(ex, sizeof ex, "(run-time limit)");
	printf("%-24s %-12s %-10s %-10s %5s  %-*s %-*s%s%s\n", str(j, "name"), str(j, "queue"), str(j, "user"), st,
	       job_gpus(j, g, sizeof g), wr, json_object_get(j, "reason") ? str(j, "reason") : "-", *ex ? 12 : 0, w,
	       *ex ? " " : "", ex);
}

static void history(json_t *j)
{
	json_t *h = json_object_get(j, "decisions"), *x;
	size_t i;
	char w[32];

	if (!json_array_size(h))
		return;
	printf("history:\n");
	json_array_foreach(h, i, x) {
		when(w, sizeof w, json_object_get(x, "at"));
		printf("  %-10s %-8s %s\n", w, str(x, "kind"), str(x, "text"));
	}
	if (json_array_size(h) >= 10) /* GET /v1/jobs/{name} shows the last ten */
		printf("  (the last ten; all of them: fairway decisions --job %s --limit 1000)\n", str(j, "name"));
}

/* A pending or running job's run-time limit (timeLimit: the one that
 * binds, api.c) and whose it is: its own maxRuntime, or else a queue's
 * (its own, if any, is the larger). */
static void run_limit(json_t *j)
{
	char whose[96] = "its queue's maxRuntime, or that of a queue above it", d[32];

	if (!json_object_get(j, "timeLimit"))
		return;
	if (json_object_get(j, "maxRuntime") && num(j, "maxRuntime") == num(j, "timeLimit"))
		snprintf(whose, sizeof whose, "its own maxRuntime");
	else if (json_object_get(j, "maxRuntime"))
		snprintf(whose, sizeof whose, "its queue's, or a queue's above it; its own, %s, is larger",
			 dur(num(j, "maxRuntime"), d, sizeof d));
	printf("run-time limit: %s (%s): it ends, timeout, once it has run this long\n",
	       dur(num(j, "timeLimit"), d, sizeof d), whose);
}

static int job_state(json_t *j)
{
	char w[32], at[FW_TIME_TEXT_MAX];
	const char *st = str(j, "state");

	char rt[48] = "runtime not given", g[32], d[32];

	if (num(j, "runtime") > 0) /* 0: none given (openapi.yaml) */
		snprintf(rt, sizeof rt, "runtime %s", dur(num(j, "runtime"), d, sizeof d));
	job_gpus(j, g, sizeof g); /* before gpu_noun reads it */
	printf("job %s  (queue %s, user %s, %s %s, %s)\n", str(j, "name"), str(j, "queue"), str(j, "user"), g,
	       gpu_noun(g), rt);
	printf("state: %s\n", st);
	if (json_object_get(j, "exitCode"))
		printf("exit code: %.0f\n", num(j, "exitCode"));
	run_limit(j);
	if (!strcmp(st, "timeout")) /* the time_limit decision's text (api.c), or the cluster's words */
		printf("why it ended: %s\n", json_object_get(j, "reasonText") ? str(j, "reasonText") :
		       "its run-time limit (maxRuntime: its own or its queue's) ended it; it is not requeued");
	else if (strcmp(st, "pending") && strcmp(st, "running") && json_object_get(j, "reasonText"))
		printf("why it ended: %s\n", str(j, "reasonText")); /* a cluster's ended job (Slurm: NODE_FAIL) */
	if (!strcmp(st, "running")) {
		when(w, sizeof w, json_object_get(j, "startTime"));
		printf("started %s on", w);
		size_t i;
		json_t *n;
		json_array_foreach(json_object_get(j, "nodes"), i, n)
			printf(" %s", json_string_value(n));
		printf("\n");
		if (json_object_get(j, "expectedEnd")) {
			when(w, sizeof w, json_object_get(j, "expectedEnd"));
			printf("expected to end %s\n", w);
		}
		return 0;
	}
	if (strcmp(st, "pending"))
		return 0;
	printf("why it waits: %s\n", json_object_get(j, "reasonText") ? str(j, "reasonText") :
	       "submitted after the last cycle; the next cycle (within the period) will consider it");
	when(w, sizeof w, json_object_get(j, "expectedStart"));
	if (json_is_integer(json_object_get(j, "expectedStart")))
		printf("expected start: %s (%s; the earliest plausible start, not a promise)\n", w,
		       utc(at, sizeof at, json_object_get(j, "expectedStart")));
	else
		printf("expected start: unknown%s%s\n", json_object_get(j, "unknownWhyText") ? " — " : "",
		       json_object_get(j, "unknownWhyText") ? str(j, "unknownWhyText") : "");
	if (json_is_integer(json_object_get(j, "reservedAt"))) {
		json_int_t from = json_integer_value(json_object_get(j, "reservedAt"));
		json_t *ex = json_object_get(j, "expectedStart");
		when(w, sizeof w, json_object_get(j, "reservedAt"));
		printf("nodes reserved for it from: %s (%s)%s\n", w, utc(at, sizeof at, json_object_get(j, "reservedAt")),
		       json_is_integer(ex) && json_integer_value(ex) < from
		       ? "; it is expected sooner: by then it will have waited the starvation age, and a gang that"
			 " has is tried ahead of the fair-share order" : "");
	}
	if (json_object_get(j, "ahead"))
		printf("jobs ahead of it in its line: %.0f\n", num(j, "ahead"));
	return 0;
}

/* A waiting job's queue against its fair share (GET /v1/fairshare). */
static void queue_share(struct opts *o, json_t *j)
{
	json_t *r, *q;
	size_t i;

	if (strcmp(str(j, "state"), "pending") || call(o, "GET", "/v1/fairshare", NULL, &r))
		return;
	json_array_foreach(json_object_get(r, "queues"), i, q) {
		if (strcmp(str(q, "queue"), str(j, "queue")))
			continue;
		double f = num(q, "fairShare"), a = num(q, "allocated");
		printf("its queue %s holds %.1f GPUs of a fair share of %.1f", str(q, "queue"), a, f);
		if (f > 0)
			printf(" (%.2fx)", a / f);
		printf("%s; `fairway fairshare explain %s` shows where the share comes from\n",
		       !strcmp(str(j, "reason"), "fairshare_order") ? ", and queues further below their share are served first" : "",
		       str(q, "queue"));
	}
	json_decref(r);
}

/* "gpu=h100,ib=": a nodeSelector object as --node-selector takes it. */
static void print_selector(json_t *sel)
{
	const char *k;
	json_t *v;
	bool first = true;

	json_object_foreach(sel, k, v) {
		printf("%s%s=%s", first ? "" : ",", k, json_is_string(v) ? json_string_value(v) : "");
		first = false;
	}
}

/* Each task group's slice ("2 tasks, inside one rack") and own node
 * selector, when the job has any (GET /v1/jobs/{name}). */
static void print_groups(json_t *j)
{
	json_t *slices = json_object_get(j, "taskSlices"), *sels = json_object_get(j, "taskNodeSelectors"), *x;
	size_t i;
	char group[48] = "";

	json_array_foreach(slices, i, x) {
		if (json_array_size(slices) > 1)
			snprintf(group, sizeof group, " of task group %zu", i);
		if (json_is_object(x))
			printf("slices%s: %.0f tasks each inside one %s\n", group, num(x, "size"), str(x, "required"));
	}
	json_array_foreach(sels, i, x)
		if (json_object_size(x)) {
			printf("node selector of task group %zu: ", i);
			print_selector(x);
			printf("\n");
		}
}

/* "LABEL: 5m ago (2026-12-06T16:42:05Z)": time t relative to now, and
 * its UTC date. */
static void print_at(const char *label, json_t *t)
{
	char w[32], at[FW_TIME_TEXT_MAX];

	when(w, sizeof w, t);
	printf("%s: %s (%s)\n", label, w, utc(at, sizeof at, t));
}

/* A job's times beyond job_state's: submitted, started (an ended job's),
 * ended; an ended job's nodes, where it last ran ("ran on n1, n2", as
 * sacct's NodeList; none for one that never ran). */
static void job_times(json_t *j)
{
	print_at("submitted", json_object_get(j, "submitTime"));
	if (strcmp(str(j, "state"), "running") && json_object_get(j, "startTime")) /* else job_state said it */
		print_at("started", json_object_get(j, "startTime"));
	if (json_object_get(j, "endTime"))
		print_at("ended", json_object_get(j, "endTime"));
	if (strcmp(str(j, "state"), "running") && json_array_size(json_object_get(j, "nodes"))) {
		size_t i;
		json_t *n;
		printf("ran on");
		json_array_foreach(json_object_get(j, "nodes"), i, n)
			printf("%s %s", i ? "," : "", json_string_value(n));
		printf("\n");
	}
}

/* What a job asked for beyond job_state's GPUs and runtime, and its
 * array. */
static void job_asks(json_t *j)
{
	char d[32];

	printf("priority: %.0f\n", num(j, "priority"));
	if (json_object_get(j, "maxRuntime") && !json_object_get(j, "timeLimit")) /* else run_limit said it */
		printf("its own run-time limit (maxRuntime): %s\n", dur(num(j, "maxRuntime"), d, sizeof d));
	if (json_object_get(j, "checkpointInterval"))
		printf("checkpoint interval: %s\n", dur(num(j, "checkpointInterval"), d, sizeof d));
	if (json_object_size(json_object_get(j, "nodeSelector"))) {
		printf("node selector: ");
		print_selector(json_object_get(j, "nodeSelector"));
		printf("\n");
	}
	print_groups(j);
	if (json_object_get(j, "arrayOf"))
		printf("task of job array %s (fairway jobs show %s)\n", str(j, "arrayOf"), str(j, "arrayOf"));
}

/* `fairway jobs show`: the job in words (--json: the API's JSON), as
 * `jobs why` without its queue's share, with what the job asked for. */
static int job_show(json_t *j)
{
	int rc = job_state(j);
	job_times(j);
	job_asks(j);
	history(j);
	return rc;
}

/* `fairway jobs why`: state, reason, expected start, its queue's share,
 * then history; an ended job (endTime) also its times (job_times: when
 * it was submitted, started and ended), as jobs show says them. */
static int job_why(struct opts *o, json_t *j)
{
	int rc = job_state(j);
	if (json_object_get(j, "endTime"))
		job_times(j);
	queue_share(o, j);
	history(j);
	return rc;
}

/* --slice 4:nvlink into the task group's {"slice": {"size": 4, "required":
 * "nvlink"}}; 2 on a word that is not SIZE:LEVEL.  The daemon checks that
 * the size divides --count, the level, and that a domain could hold it. */
static int slice_flag(struct opts *o, json_t *t)
{
	const char *v = flag(o, "--slice"), *colon = v ? strchr(v, ':') : NULL;
	char *end;
	long n;

	if (!v)
		return 0;
	n = colon ? strtol(v, &end, 10) : 0;
	if (!colon || end != colon || colon == v || n < 1 || n > FW_API_COUNT_MAX || !colon[1])
		return usage_error(o, "--slice: '%.60s' is not SIZE:LEVEL (tasks per slice, 1..%d, and the "
						  "topology level each slice keeps inside, or node), e.g. --slice 4:nvlink",
					  v, FW_API_COUNT_MAX);
	json_object_set_new(t, "slice", json_pack("{s:I,s:s}", "size", (json_int_t)n, "required", colon + 1));
	return 0;
}

/* --node-selector gpu=h100,ib= into {"gpu": "h100", "ib": ""}; 2 on a
 * word that is not KEY=VALUE or a key given twice.  The daemon checks the
 * names and that some node has the labels. */
static int node_selector(struct opts *o, json_t *j)
{
	const char *sel = flag(o, "--node-selector");
	char buf[1024], *save = NULL;
	json_t *m;

	if (!sel)
		return 0;
	if (strlen(sel) >= sizeof buf)
		return usage_error(o, "--node-selector: longer than %zu bytes", sizeof buf - 1);
	strcpy(buf, sel);
	m = json_object();
	for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(w, '=');
		if (!eq || eq == w) {
			json_decref(m);
			return usage_error(o, "--node-selector: '%.60s' is not KEY=VALUE (KEY= for a label "
							  "without a value), e.g. --node-selector gpu=h100,ib=", w);
		}
		*eq = '\0';
		if (json_object_get(m, w)) {
			json_decref(m);
			return usage_error(o, "--node-selector: label '%.60s' is given twice; keep one", w);
		}
		json_object_set_new(m, w, json_string(eq + 1));
	}
	if (!json_object_size(m)) {
		json_decref(m);
		return usage_error(o, "--node-selector: give KEY=VALUE pairs, e.g. gpu=h100,ib=");
	}
	json_object_set_new(j, "nodeSelector", m);
	return 0;
}

/* The name of the user running this command, as sbatch and squeue --me
 * take it: the effective uid's login name, else $USER; NULL when neither
 * says. */
static const char *login_name(char *buf, size_t n)
{
	struct passwd pw, *found = NULL;
	char scratch[4096];
	const char *env = getenv("USER");

	if (getpwuid_r(geteuid(), &pw, scratch, sizeof scratch, &found) == 0 && found && found->pw_name[0]) {
		snprintf(buf, n, "%s", found->pw_name);
		return buf;
	}
	return env && *env ? env : NULL;
}

/* --required-level / --preferred-level LEVEL into j[key]: one word, a
 * level of the cluster's topology or node; 2 on an empty word or one of
 * several.  The daemon checks that the cluster has the level (a 400
 * naming its levels). */
static int set_level(struct opts *o, json_t *j, const char *key, const char *fl)
{
	const char *v = flag(o, fl);

	if (!v)
		return 0;
	if (!*v || strlen(v) >= FW_NAME_MAX || strpbrk(v, " \t\r\n,:="))
		return usage_error(o, "%s '%.40s' is not a level name: give one word, a topology level of the "
					  "cluster (e.g. rack or nvlink) or node; leave %s out for none", fl, v, fl);
	json_object_set_new(j, key, json_string(v));
	return 0;
}

/* --preemptible or --no-preemptible (neither: the API's default,
 * preemptible) and --spread into j; 2 when both of the first two are
 * given. */
static int set_switches(struct opts *o, json_t *j)
{
	bool yes = has(o, "--preemptible"), no = has(o, "--no-preemptible");

	if (yes && no)
		return usage_error(o, "--preemptible and --no-preemptible: give one of them (without either, "
					  "the job is preemptible: the API's default)");
	if (yes || no)
		json_object_set_new(j, "preemptible", json_boolean(yes));
	if (has(o, "--spread"))
		json_object_set_new(j, "spread", json_true());
	return 0;
}

/* The job's own flags into j (its task group's are task_fields'). */
static int job_fields(struct opts *o, json_t *j)
{
	char me[FW_NAME_MAX];
	const char *user = flag(o, "--user") ? flag(o, "--user") : login_name(me, sizeof me);
	int rc;

	if (flag(o, "--name"))
		json_object_set_new(j, "name", json_string(flag(o, "--name")));
	if (user && *user) /* as sbatch: the submitter's, unless --user says (--user '': none) */
		json_object_set_new(j, "user", json_string(user));
	if (flag(o, "--array")) /* the daemon reads it, and says what is wrong with it */
		json_object_set_new(j, "array", json_string(flag(o, "--array")));
	if ((rc = set_secs(o, j, "runtime", "--runtime")) || (rc = set_num(o, j, "priority", "--priority", true)) ||
	    (rc = set_secs(o, j, "checkpointInterval", "--checkpoint-interval")) ||
	    (rc = set_secs(o, j, "maxRuntime", "--max-runtime")) ||
	    (rc = set_num(o, j, "exitCode", "--exit-code", true)) ||
	    (rc = set_num(o, j, "minMember", "--min-member", true)) ||
	    (rc = set_level(o, j, "requiredLevel", "--required-level")) ||
	    (rc = set_level(o, j, "preferredLevel", "--preferred-level")) || (rc = set_switches(o, j)))
		return rc;
	return node_selector(o, j);
}

/* The task group's flags into t. */
static int task_fields(struct opts *o, json_t *t)
{
	int rc;

	if (flag(o, "--gpu-model"))
		json_object_set_new(t, "gpuModel", json_string(flag(o, "--gpu-model")));
	if ((rc = set_num(o, t, "count", "--count", true)) || (rc = set_num(o, t, "gpus", "--gpus", true)) ||
	    (rc = set_num(o, t, "gpuFraction", "--gpu-fraction", false)) ||
	    (rc = set_num(o, t, "cpu", "--cpu", false)) || (rc = set_memory(o, t, "memory")))
		return rc;
	return slice_flag(o, t);
}

/* --min-member N: at most the job's tasks, its --count (the daemon says
 * the same of minMember, naming the member instead). */
static int min_member_fits(struct opts *o, json_t *j, json_t *t)
{
	json_t *c = json_object_get(t, "count");
	json_int_t tasks = c ? json_integer_value(c) : 1;

	if (json_integer_value(json_object_get(j, "minMember")) > tasks)
		return usage_error(o, "--min-member %s: more than the job's %lld task%s (--count%s); lower "
					  "--min-member or raise --count", flag(o, "--min-member"), (long long)tasks,
					  tasks == 1 ? "" : "s", c ? "" : ", default 1");
	return 0;
}

/* The job's fields as job_fields and task_fields set them from its
 * flags (one task group, tasks[0]). */
static const char *const job_flags[][2] = {
	{ "queue", "--queue" },
	{ "name", "--name" },
	{ "user", "--user" },
	{ "array", "--array" },
	{ "runtime", "--runtime" },
	{ "priority", "--priority" },
	{ "checkpointInterval", "--checkpoint-interval" },
	{ "maxRuntime", "--max-runtime" },
	{ "exitCode", "--exit-code" },
	{ "minMember", "--min-member" },
	{ "requiredLevel", "--required-level" },
	{ "preferredLevel", "--preferred-level" },
	{ "preemptible", "--preemptible/--no-preemptible" },
	{ "spread", "--spread" },
	{ "nodeSelector", "--node-selector" },
	{ "tasks[0].count", "--count" },
	{ "tasks[0].gpus", "--gpus" },
	{ "tasks[0].gpuFraction", "--gpu-fraction" },
	{ "tasks[0].cpu", "--cpu" },
	{ "tasks[0].memory", "--memory" },
	{ "tasks[0].gpuModel", "--gpu-model" },
	{ "tasks[0].slice", "--slice" },
	{ NULL, NULL },
};

static json_t *job_body(struct opts *o, int *rc)
{
	const char *file = flag(o, "--file");
	json_t *j, *t;

	*rc = 0;
	if (file) {
		if ((*rc = file_alone(o, "job")))
			return NULL;
		if (!(j = load_file(o, file)))
			*rc = 2;
		return j;
	}
	if ((*rc = need(o, "--queue", flag(o, "--queue"))) ||
	    (*rc = need(o, "--gpus (0 for a job of only --cpu and --memory)", flag(o, "--gpus"))))
		return NULL;
	j = json_pack("{s:s}", "queue", flag(o, "--queue"));
	t = json_object();
	o->field_flags = job_flags; /* a 400 names the flag beside the field */
	if ((*rc = job_fields(o, j)) || (*rc = task_fields(o, t)) || (*rc = min_member_fits(o, j, t))) {
		json_decref(j), json_decref(t);
		return NULL;
	}
	json_object_set_new(j, "tasks", json_pack("[o]", t));
	return j;
}

/* A listing r that says "truncated" (its array arr holds the first or
 * the last ?limit= of what matched): one line on stderr saying so, and
 * which flags show more or fewer. */
static void note_cut(json_t *r, const char *arr, const char *which, const char *fewer)
{
	if (json_is_true(json_object_get(r, "truncated")))
		fprintf(stderr, "fairway %s: %s %zu %s only, more match: --limit N (up to 100000) shows more, %s fewer%s\n",
			!strcmp(arr, "jobs") ? "jobs" : "decisions", which, json_array_size(json_object_get(r, arr)),
			!strcmp(arr, "jobs") ? "jobs" : "rows", fewer,
			json_object_get(r, "nextOffset") ? "; --offset N the next ones" : "");
}

/* path = base plus a query argument per flag given (filters: flag, key,
 * ending with NULL), each value URL-encoded (the daemon judges them); 2
 * on a value too long to send. */
static int query_path(struct opts *o, const char *base, const char *const (*filters)[2], char *path, size_t n)
{
	char v[3 * FW_NAME_MAX + 1];
	size_t k = (size_t)snprintf(path, n, "%s", base);
	char sep = strchr(path, '?') ? '&' : '?';

	o->query_flags = filters; /* a 400 names the flag beside the argument */

	for (; (*filters)[0]; filters++) {
		const char *want = flag(o, (*filters)[0]);
		if (!want)
			continue;
		if (!encode(v, sizeof v, want) || strlen(v) + strlen((*filters)[1]) + 2 >= n - k)
			return usage_error(o, "%s: at most %d bytes", (*filters)[0], FW_NAME_MAX - 1);
		k += (size_t)snprintf(path + k, n - k, "%c%s=%s", sep, (*filters)[1], v);
		sep = '&';
	}
	return 0;
}

/* GET /v1/jobs with the list's filters: ?state=, ?queue=, ?user= (or
 * --me: this login's), ?reason=, ?array=, ?limit= and ?offset=. */
static int jobs_list_path(struct opts *o, char *path, size_t n)
{
	static const char *const filters[][2] = { { "--state", "state" }, { "--queue", "queue" }, { "--user", "user" },
						  { "--reason", "reason" }, { "--array", "array" }, { "--limit", "limit" },
						  { "--offset", "offset" }, { NULL, NULL } };
	char base[32 + 3 * FW_NAME_MAX] = "/v1/jobs", me[FW_NAME_MAX], v[3 * FW_NAME_MAX + 1];
	const char *who;

	if (flag(o, "--array") && !flag(o, "--array")[0])
		return usage_error(o, "--array is empty: give a job array's name (fairway jobs show NAME "
						  "shows the array), or leave --array out to list every job");
	if (has(o, "--me")) {
		if (flag(o, "--user"))
			return usage_error(o, "--me and --user %s: give one of them", flag(o, "--user"));
		if (!(who = login_name(me, sizeof me)) || !encode(v, sizeof v, who))
			return usage_error(o, "--me: this login has no user name (no passwd entry, no $USER);"
							  " give --user U");
		snprintf(base, sizeof base, "/v1/jobs?user=%s", v);
	}
	return query_path(o, base, filters, path, n);
}

/* `fairway jobs cancel NAME...`, as scancel takes several: each in turn,
 * whatever the others' outcome; a line each (--json: the answer, or the
 * answers in one array for several names; a failure goes to stderr); the
 * exit status of the first that failed, 0 when none did. */
/* The index of the task name of the array base (BASE_<index>); -1 when
 * it is no such name. */
static long task_index(const char *base, const char *name)
{
	size_t n = strlen(base);
	char *end;

	if (!name || strncmp(name, base, n) || name[n] != '_' || name[n + 1] < '0' || name[n + 1] > '9')
		return -1;
	long x = strtol(name + n + 1, &end, 10);
	return *end ? -1 : x;
}

/* Where the run of consecutive indices that starts at names[i] ends. */
static size_t run_end(const char *base, json_t *names, size_t i)
{
	long x = task_index(base, json_string_value(json_array_get(names, i)));

	while (x >= 0 && i + 1 < json_array_size(names) &&
	       task_index(base, json_string_value(json_array_get(names, i + 1))) == x + 1)
		i++, x++;
	return i;
}

static void print_run(json_t *names, size_t i, size_t e, bool first)
{
	printf("%s%s", first ? "" : ", ", json_string_value(json_array_get(names, i)));
	if (e > i)
		printf("%s%s", e == i + 1 ? ", " : " .. ", json_string_value(json_array_get(names, e)));
}

#define TASK_RUNS_SHOWN 6
/* An array's task names (ascending) on a line: "N tasks WHAT (A, B, D ..
 * F)": three or more consecutive indices as FIRST .. LAST, and beyond
 * TASK_RUNS_SHOWN such runs the first few, "..." and the last. */
static void print_tasks(const char *base, json_t *names, const char *what)
{
	size_t n = json_array_size(names), runs = 0, e;

	for (size_t i = 0; i < n; i = run_end(base, names, i) + 1)
		runs++;
	printf("%zu task%s%s (", n, n == 1 ? "" : "s", what);
	for (size_t i = 0, r = 0; i < n; i = e + 1, r++) {
		e = run_end(base, names, i);
		if (runs > TASK_RUNS_SHOWN && r >= TASK_RUNS_SHOWN - 2 && r + 1 < runs) {
			fputs(r == TASK_RUNS_SHOWN - 2 ? ", ..." : "", stdout);
			continue;
		}
		print_run(names, i, e, r == 0);
	}
	printf(")");
}

/* One cancel's answer: a job's, or a job array's (its tasks cancelled). */
static void print_cancelled(const char *name, json_t *r)
{
	json_t *tasks = json_object_get(r, "cancelled");

	if (!tasks) {
		printf("%s: cancelled\n", name);
		return;
	}
	printf("%s: cancelled ", name);
	print_tasks(name, tasks, " of the array");
	printf("\n");
}

/* A submitted job's name, or an array's tasks', and the daemon's
 * warning (a limit the job alone passes: it never starts under it). */
static void print_submitted(json_t *r)
{
	json_t *names = json_object_get(r, "names");

	if (!names) {
		printf("submitted %s\n", str(r, "name"));
	} else {
		printf("submitted array %s: ", str(r, "arrayOf"));
		print_tasks(str(r, "arrayOf"), names, "");
		printf("\n");
	}
	fflush(stdout);
	if (json_is_string(json_object_get(r, "warning")))
		fprintf(stderr, "fairway jobs submit: warning: %s\n", str(r, "warning"));
}

/* jobs cancel NAME...: each in turn; a job's own refusal (404, 409) is
 * said and the rest go on, but a missing or refused token, or no daemon,
 * stops at the first name: it is said once, exit non-zero. */
static int cancel_jobs(struct opts *o)
{
	json_t *all = json_array(), *r;
	char path[256];
	int first = 0, rc;

	for (int k = 1; arg(o, k); k++) {
		long st = 1;
		if (!(rc = name_path(o, path, sizeof path, "/v1/jobs/", arg(o, k), "")) &&
		    !(rc = call_st(o, "DELETE", path, NULL, &r, &st))) {
			if (!o->json)
				print_cancelled(arg(o, k), r);
			json_array_append_new(all, r);
		}
		first = first ? first : rc;
		if (rc && (st <= 0 || st == 401 || st == 403))
			break; /* no token, refused or no daemon: the same for every name, said once */
	}
	if (o->json && !arg(o, 2)) /* one name: its answer, as ever */
		json_array_size(all) ? dump(json_array_get(all, 0)) : (void)0;
	else if (o->json)
		dump(all);
	json_decref(all);
	return first;
}

/* An array's counts ({"pending": 3, ...}) on a line: "3 pending, 1 done". */
static int key_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "what: 7 pending, 3 running, ..." in one order whatever the answer's:
 * the job states as a job lives them, then any other key by name. */
static void print_counts(const char *what, json_t *counts)
{
	static const char *const life[] = { "pending", "running", "done", "failed", "timeout", "cancelled" };
	const char *k, *rest[64];
	json_t *v;
	size_t n = 0, shown = 0;

	printf("%s", what);
	for (size_t i = 0; i < sizeof life / sizeof *life; i++)
		if ((v = json_object_get(counts, life[i])))
			printf("%s%lld %s", shown++ ? ", " : "", (long long)json_integer_value(v), life[i]);
	json_object_foreach(counts, k, v) {
		bool known = false;
		for (size_t i = 0; i < sizeof life / sizeof *life && !known; i++)
			known = !strcmp(k, life[i]);
		if (!known && n < sizeof rest / sizeof *rest)
			rest[n++] = k;
	}
	qsort(rest, n, sizeof *rest, key_cmp);
	for (size_t i = 0; i < n; i++)
		printf("%s%lld %s", shown++ ? ", " : "", (long long)json_integer_value(json_object_get(counts, rest[i])),
		       rest[i]);
	printf("\n");
}

/* `jobs show|why NAME` of a job array's NAME: the array as a whole
 * (GET /v1/jobs/NAME, "kind": "array"). */
static void print_array(json_t *a)
{
	char g[32], w[32], w2[32];
	json_t *ex = json_object_get(a, "expectedStart");

	job_gpus(a, g, sizeof g); /* before gpu_noun reads it */
	printf("job array %s  (queue %s, user %s, %s %s each)\n", str(a, "name"), str(a, "queue"), str(a, "user"), g,
	       gpu_noun(g));
	print_tasks(str(a, "name"), json_object_get(a, "tasks"), "");
	printf(", indices %s\n", str(a, "indices"));
	print_counts("states: ", json_object_get(a, "states"));
	when(w, sizeof w, json_object_get(a, "submitTime"));
	printf("submitted: %s (the earliest task)\n", w);
	if (json_object_get(a, "reasons"))
		print_counts("waiting for: ", json_object_get(a, "reasons"));
	if (ex) {
		when(w, sizeof w, json_object_get(ex, "earliest"));
		when(w2, sizeof w2, json_object_get(ex, "latest"));
		if (!strcmp(w, w2))
			printf("expected start: %s, every waiting task (the earliest plausible, not a promise)", w);
		else
			printf("expected starts: %s .. %s (the earliest plausible, not a promise)", w, w2);
		printf(num(a, "unknownStarts") > 0 ? "; %.0f task(s) with none yet\n" : "\n", num(a, "unknownStarts"));
	} else if (json_object_get(a, "reasons"))
		printf("expected starts: unknown for every waiting task\n");
	printf("one task: fairway jobs why %s_<index>; every task: fairway jobs list --array %s --state all\n",
	       str(a, "name"), str(a, "name"));
}

/* `jobs submit --test-only` (sbatch --test-only): what the daemon's next
 * cycle would do with the job, which was not submitted. */
static void print_test_only(json_t *j)
{
	char w[32], g[32], at[FW_TIME_TEXT_MAX];

	job_gpus(j, g, sizeof g); /* before gpu_noun reads it */
	if (!strcmp(str(j, "state"), "running")) {
		size_t i;
		json_t *n;
		printf("job %s would start now (%s %s, queue %s) on", str(j, "name"), g, gpu_noun(g), str(j, "queue"));
		json_array_foreach(json_object_get(j, "nodes"), i, n)
			printf("%s%s", i ? "," : " ", json_string_value(n));
		printf("\n");
	} else {
		when(w, sizeof w, json_object_get(j, "expectedStart"));
		printf("job %s would wait (%s %s, queue %s): %s\n", str(j, "name"), g, gpu_noun(g), str(j, "queue"),
		       str(j, "reasonText"));
		if (json_is_integer(json_object_get(j, "expectedStart")))
			printf("expected start: %s (%s; the earliest plausible start, not a promise)\n", w,
			       utc(at, sizeof at, json_object_get(j, "expectedStart")));
		else
			printf("expected start: unknown: %s\n", str(j, "unknownWhyText"));
	}
	printf("(not submitted: --test-only)\n");
}

static int cmd_jobs(struct opts *o)
{
	const char *sub = arg(o, 0) ? arg(o, 0) : "list", *name = arg(o, 1);
	char path[1024];
	json_t *r = NULL, *body;
	int rc;

	if (!strcmp(sub, "list")) {
		if ((rc = jobs_list_path(o, path, sizeof path)))
			return rc;
		if ((rc = call(o, "GET", path, NULL, &r)))
			return rc;
		if (o->json)
			dump(r);
		else if ((rc = listing(o, r, "jobs", false))) {
			json_decref(r);
			return rc;
		} else {
			size_t i;
			json_t *j;
			int wr = reason_width(json_object_get(r, "jobs"));
			printf("%-24s %-12s %-10s %-10s %5s  %-*s %s\n", "JOB", "QUEUE", "USER", "STATE", "GPUS", wr, "REASON",
			       "START");
			json_array_foreach(json_object_get(r, "jobs"), i, j)
				print_job_row(j, wr);
			note_cut(r, "jobs", "the first", "--queue/--user/--state/--reason/--array");
			if (json_object_get(r, "hint")) /* why the list is empty (api.c list_hint) */
				fprintf(stderr, "fairway jobs: nothing listed: %s\n", str(r, "hint"));
		}
		json_decref(r);
		return 0;
	}
	if (!strcmp(sub, "submit")) {
		bool test = has(o, "--test-only");
		if (test && flag(o, "--array"))
			return usage_error(o, "--test-only and --array: an array cannot be tested; test one "
						  "task (leave --array out: the tasks differ only by name)");
		if (!(body = job_body(o, &rc)))
			return rc ? rc : 2;
		rc = call(o, "POST", test ? "/v1/jobs?dryRun=true" : "/v1/jobs", body, &r);
		json_decref(body);
		if (!rc) {
			if (o->json)
				dump(r);
			else if (test)
				print_test_only(json_object_get(r, "job"));
			else
				print_submitted(r);
		}
		json_decref(r);
		return rc;
	}
	if ((rc = need(o, "a job NAME", name)))
		return rc;
	if (!strcmp(sub, "cancel"))
		return cancel_jobs(o);
	if ((rc = name_path(o, path, sizeof path, "/v1/jobs/", name, "")))
		return rc;
	if (!strcmp(sub, "show") || !strcmp(sub, "why")) {
		bool array = !(rc = call(o, "GET", path, NULL, &r)) && !strcmp(str(r, "kind"), "array");
		if (!rc && array && !o->json)
			print_array(r);
		else if (!rc && o->json)
			dump(r);
		else if (!rc)
			rc = !strcmp(sub, "show") ? job_show(r) : job_why(o, r);
	} else
		return usage_error(o, "unknown subcommand '%s'", sub);
	json_decref(r);
	return rc;
}

/* --- nodes -------------------------------------------------------------------------------- */
/* A node's STATE: schedulable, held, "back in T" or "leaves in T". */
static const char *node_state(json_t *n, char *buf, size_t len)
{
	json_t *leaves = json_object_get(n, "leavesAt"), *back_at = json_object_get(n, "backAt");
	bool sched = json_is_true(json_object_get(n, "schedulable"));
	char t[24];

	when(t, sizeof t, sched ? leaves : back_at);
	if (sched && leaves)
		snprintf(buf, len, "leaves %s", t);
	else if (!sched && back_at)
		snprintf(buf, len, "back %s", t);
	else
		snprintf(buf, len, "%s", sched ? "schedulable" : "held");
	return buf;
}

/* A node's HEALTH, one word: UNHEALTHY (takes no work), draining (in an
 * open maintenance window, or drained: nothing new lands, its jobs may
 * finish), suspect (on probation), degraded (healthy, some GPUs bad) or
 * healthy. */
static const char *node_health(json_t *n)
{
	if (!json_is_true(json_object_get(n, "healthy")))
		return "UNHEALTHY";
	if (!strcmp(str(n, "health"), "draining"))
		return "draining";
	if (!strcmp(str(n, "health"), "suspect"))
		return "suspect";
	return json_array_size(json_object_get(n, "badGpus")) ? "degraded" : "healthy";
}

/* A node's BAD column: its badGpus as "1", "1,3" or "0-7" (runs of three
 * or more as a range), "-" for none. */
static const char *bad_gpus(json_t *n, char *buf, size_t len)
{
	json_t *bad = json_object_get(n, "badGpus");
	size_t k = 0, m = json_array_size(bad), used = 0;

	snprintf(buf, len, "-");
	while (k < m && used < len) {
		long long a = json_integer_value(json_array_get(bad, k)), b = a;
		size_t e = k;
		while (e + 1 < m && json_integer_value(json_array_get(bad, e + 1)) == b + 1)
			b++, e++;
		if (b - a >= 2)
			used += (size_t)snprintf(buf + used, len - used, "%s%lld-%lld", k ? "," : "", a, b), k = e + 1;
		else
			used += (size_t)snprintf(buf + used, len - used, "%s%lld", k ? "," : "", a), k++;
	}
	return buf;
}

/* A row of `fairway nodes list`: the health word in its column, the bad
 * GPUs in BAD, and in REASON why the node is in that health state ("-"
 * for none), so a healthy node with a note reads "healthy  -  fairway: 1
 * job failure ...", never as one phrase. */
static void print_node_row(json_t *n)
{
	char inc[32], state[48], bad[64];

	snprintf(inc, sizeof inc, "%.0f%s", num(n, "incidents"),
		 json_is_true(json_object_get(n, "lemon")) ? " lemon" : "");
	printf("%-16s %-8s %5.0f %6.2f %-17s %-9s %-9s %-7s %s\n", str(n, "name"), str(n, "gpuModel"),
	       num(n, "gpus"), num(n, "gpusAllocated"), node_state(n, state, sizeof state), inc, node_health(n),
	       bad_gpus(n, bad, sizeof bad), str(n, "healthReason"));
}

/* "LABEL: k=v,k=v" of a node's topology or labels; "none" for none. */
static void print_pairs(const char *label, json_t *pairs)
{
	printf("%s: ", label);
	if (json_object_size(pairs))
		print_selector(pairs);
	else
		printf("none");
	printf("\n");
}

/* `fairway nodes show NAME`: the node in words (--json: the API's
 * JSON), as a row of nodes list spelled out. */
static void node_show(json_t *n)
{
	char bad[64];

	printf("node: %s\n", str(n, "name"));
	printf("model: %s\n", str(n, "gpuModel"));
	printf("GPUs: %g of %.0f allocated\n", num(n, "gpusAllocated"), num(n, "gpus"));
	printf("schedulable: %s\n", json_is_true(json_object_get(n, "schedulable")) ? "yes" : "no (held: takes no work)");
	if (json_object_get(n, "leavesAt"))
		print_at("leaves", json_object_get(n, "leavesAt"));
	if (json_object_get(n, "backAt"))
		print_at("back", json_object_get(n, "backAt"));
	printf("health: %s\n", node_health(n));
	printf("reason: %s\n", str(n, "healthReason"));
	printf("bad GPUs: %s\n", strcmp(bad_gpus(n, bad, sizeof bad), "-") ? bad : "none");
	printf("incidents: %.0f%s\n", num(n, "incidents"),
	       json_is_true(json_object_get(n, "lemon")) ? " (a lemon: fails again and again)" : "");
	print_pairs("topology", json_object_get(n, "topology"));
	print_pairs("labels", json_object_get(n, "labels"));
}

static int cmd_nodes(struct opts *o)
{
	const char *sub = arg(o, 0) ? arg(o, 0) : "list", *name = arg(o, 1);
	char path[256];
	json_t *r = NULL;
	int rc;

	if (!strcmp(sub, "list")) {
		char want[128] = "";
		if (flag(o, "--health") && !encode(want, sizeof want, flag(o, "--health")))
			return usage_error(o, "--health: a comma-separated list of healthy, suspect, unhealthy, "
							  "draining, degraded and lemon");
		static const char *const health_arg[][2] = { { "--health", "health" }, { NULL, NULL } };
		snprintf(path, sizeof path, "/v1/nodes%s%s", want[0] ? "?health=" : "", want);
		o->query_flags = health_arg; /* a 400 names the flag beside the argument */
		if ((rc = call(o, "GET", path, NULL, &r)))
			return rc;
		if (o->json)
			dump(r);
		else if ((rc = listing(o, r, "nodes", false))) {
			json_decref(r);
			return rc;
		} else {
			size_t i;
			json_t *n;
			printf("%-16s %-8s %5s %6s %-17s %-9s %-9s %-7s %s\n", "NODE", "MODEL", "GPUS", "USED", "STATE",
			       "INCIDENTS", "HEALTH", "BAD", "REASON");
			json_array_foreach(json_object_get(r, "nodes"), i, n)
				print_node_row(n);
			json_t *f = json_object_get(r, "figures");
			printf("\n%.0f of %.0f GPUs allocated; %lld unhealthy node(s)\n", num(f, "gpusAllocated"),
			       num(f, "gpusTotal"), (long long)json_integer_value(json_object_get(f, "unhealthyNodes")));
			if (!json_array_size(json_object_get(r, "nodes")))
				fprintf(stderr, "fairway nodes: nothing listed: %s\n",
					want[0] ? "no node's health is one of --health's; drop --health to list every node"
						: "the daemon's cluster has no node yet (the local backend's come from "
						  "--config; Slurm's from slurmctld)");
		}
		json_decref(r);
		return 0;
	}
	if ((rc = need(o, "a node NAME", name)))
		return rc;
	if (!strcmp(sub, "show")) {
		if ((rc = name_path(o, path, sizeof path, "/v1/nodes/", name, "")))
			return rc;
		if (!(rc = call(o, "GET", path, NULL, &r)))
			o->json ? dump(r) : node_show(r);
	} else if (!strcmp(sub, "health")) {
		if (has(o, "--healthy") && has(o, "--unhealthy"))
			return usage_error(o, "--healthy and --unhealthy conflict: give one of them");
		if (!has(o, "--healthy") && !has(o, "--unhealthy"))
			return usage_error(o, "say --healthy or --unhealthy");
		if ((rc = name_path(o, path, sizeof path, "/v1/nodes/", name, "/health")))
			return rc;
		static const char *const health_flags[][2] = {
			{ "healthy", "--healthy/--unhealthy" }, { "reason", "--reason" }, { "badGpus", "--bad-gpus" },
			{ NULL, NULL },
		};
		json_t *b = json_pack("{s:b}", "healthy", has(o, "--healthy"));
		o->field_flags = health_flags; /* a 400 names the flag beside the field */
		if (flag(o, "--reason"))
			json_object_set_new(b, "reason", json_string(flag(o, "--reason")));
		if (flag(o, "--bad-gpus")) {
			json_t *a = json_array();
			char *dup = strdup(flag(o, "--bad-gpus")), *save = NULL;
			for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
				char *end;
				long g = strtol(t, &end, 10);
				if (*end || end == t || g < 0 || g > 255) {
					rc = usage_error(o, "--bad-gpus '%s': expected GPU indices 0..255, "
								"comma-separated, e.g. 0,3", flag(o, "--bad-gpus"));
					free(dup), json_decref(a), json_decref(b);
					return rc;
				}
				json_array_append_new(a, json_integer(g));
			}
			free(dup);
			json_object_set_new(b, "badGpus", a);
		}
		rc = call(o, "POST", path, b, &r);
		json_decref(b);
		if (!rc && !o->json && has(o, "--healthy") && !json_is_true(json_object_get(r, "healthy")))
			printf("%s: health recorded as unhealthy: %s\n", name, str(r, "reason")); /* every GPU bad */
		else if (!rc)
			o->json ? dump(r) : (void)printf("%s: health recorded\n", name);
	} else
		return usage_error(o, "unknown subcommand '%s'", sub);
	json_decref(r);
	return rc;
}

/* --- reservations ----------------------------------------------------------------------------- */
/* The FOR column: a reservation's queue or job; for one the backend keeps
 * of its own (read-only here), its source and flags ("slurm MAINT"). */
static const char *rsv_for(json_t *x, char *buf, size_t n)
{
	size_t i, at;
	json_t *f;

	if (json_object_get(x, "queue"))
		return str(x, "queue");
	if (json_object_get(x, "job"))
		return str(x, "job");
	if (!json_is_true(json_object_get(x, "readOnly")))
		return "-";
	at = (size_t)snprintf(buf, n, "%s", str(x, "source"));
	json_array_foreach(json_object_get(x, "flags"), i, f)
		if (at < n)
			at += (size_t)snprintf(buf + at, n - at, "%s%s", i ? "," : " ", json_is_string(f) ? json_string_value(f) : "?");
	return buf;
}

/* The reservation's fields as `reservations create` sets them. */
static const char *const rsv_flags[][2] = {
	{ "kind", "--kind" }, { "nodes", "--nodes" }, { "queue", "--queue" }, { "job", "--job" },
	{ "reason", "--reason" }, { "id", "--id" }, { "start", "--start" }, { "end", "--end" },
	{ NULL, NULL },
};

/* The widest of the START or END cells ("in 76h00m", "12m05s ago"), at
 * least 10: a column as wide as its longest entry. */
static int when_width(json_t *rs, const char *key)
{
	char w[32];
	size_t i;
	json_t *x;
	int wid = 10;

	json_array_foreach(rs, i, x) {
		when(w, sizeof w, json_object_get(x, key));
		wid = (int)strlen(w) > wid ? (int)strlen(w) : wid;
	}
	return wid;
}

static void print_rsv_table(json_t *rs)
{
	char f[256], a[32], b[32];
	int wid = 12, wfor = 16, ws = when_width(rs, "start"), we = when_width(rs, "end");
	size_t i, k;
	json_t *x, *n;

	json_array_foreach(rs, i, x) {
		int l1 = (int)strlen(str(x, "id")), l2 = (int)strlen(rsv_for(x, f, sizeof f));
		wid = l1 > wid ? l1 : wid;
		wfor = l2 > wfor ? l2 : wfor;
	}
	printf("%-*s %-12s %-*s %-*s %-*s %s\n", wid, "ID", "KIND", wfor, "FOR", ws, "START", we, "END", "NODES");
	json_array_foreach(rs, i, x) {
		when(a, sizeof a, json_object_get(x, "start"));
		when(b, sizeof b, json_object_get(x, "end"));
		printf("%-*s %-12s %-*s %-*s %-*s ", wid, str(x, "id"), str(x, "kind"), wfor, rsv_for(x, f, sizeof f),
		       ws, a, we, b);
		json_array_foreach(json_object_get(x, "nodes"), k, n) /* comma-separated, as --nodes takes them */
			printf("%s%s", k ? "," : "", json_string_value(n));
		printf("\n");
	}
}

/* `fairway reservations list [--all]`: those not yet ended (as jobs list
 * shows the jobs not yet ended), with --all the ended ones too
 * (GET /v1/reservations?state=all); a line says how many ended ones were
 * left out. */
static int list_reservations(struct opts *o)
{
	json_t *r, *more, *ended;
	int rc = call(o, "GET", has(o, "--all") ? "/v1/reservations?state=all" : "/v1/reservations", NULL, &r);

	if (rc)
		return rc;
	if (o->json || (rc = listing(o, r, "reservations", false))) {
		if (!rc)
			dump(r);
		json_decref(r);
		return rc;
	}
	more = json_object_get(r, "backendNotListed");
	ended = json_object_get(r, "endedNotListed");
	print_rsv_table(json_object_get(r, "reservations"));
	if (json_integer_value(ended) > 0)
		printf("\n%lld ended reservation%s not listed (--all lists them)\n", (long long)json_integer_value(ended),
		       json_integer_value(ended) == 1 ? "" : "s");
	if (json_integer_value(more) > 0)
		printf("\n%lld more of the backend's not listed (scontrol show res lists them all)\n",
		       (long long)json_integer_value(more));
	json_decref(r);
	return 0;
}

/* `fairway reservations show ID`: the reservation in words (--json: the
 * API's JSON), its times relative as the list has them. */
static void rsv_show(json_t *x)
{
	char f[256];
	size_t k;
	json_t *n;

	printf("reservation: %s\n", str(x, "id"));
	printf("kind: %s\n", str(x, "kind"));
	printf("for: %s\n", rsv_for(x, f, sizeof f));
	print_at("start", json_object_get(x, "start"));
	print_at("end", json_object_get(x, "end"));
	printf("nodes:");
	json_array_foreach(json_object_get(x, "nodes"), k, n)
		printf("%s%s", k ? "," : " ", json_string_value(n));
	printf("%s\n", json_is_true(json_object_get(x, "nodesCut")) ? " (the first only)" : "");
	if (json_object_get(x, "nodeList"))
		printf("node list (the cluster's): %s\n", str(x, "nodeList"));
	printf("reason: %s\n", str(x, "reason"));
}

static int cmd_reservations(struct opts *o)
{
	const char *sub = arg(o, 0) ? arg(o, 0) : "list";
	char path[256];
	json_t *r = NULL;
	int rc;

	if (!strcmp(sub, "list"))
		return list_reservations(o);
	if (!strcmp(sub, "create")) {
		if ((rc = need(o, "--kind", flag(o, "--kind"))) || (rc = need(o, "--nodes", flag(o, "--nodes"))))
			return rc;
		json_t *body = json_pack("{s:s,s:o}", "kind", flag(o, "--kind"), "nodes", csv_strings(flag(o, "--nodes")));
		static const char *const strs[][2] = { { "--queue", "queue" }, { "--job", "job" }, { "--reason", "reason" }, { "--id", "id" } };
		for (size_t k = 0; k < 4; k++)
			if (flag(o, strs[k][0]))
				json_object_set_new(body, strs[k][1], json_string(flag(o, strs[k][0])));
		if ((rc = parse_time(o, "--start", body, "start")) || (rc = parse_time(o, "--end", body, "end"))) {
			json_decref(body);
			return rc;
		}
		o->field_flags = rsv_flags; /* a 400 names the flag beside the field */
		rc = call(o, "POST", "/v1/reservations", body, &r);
		json_decref(body);
		if (!rc)
			o->json ? dump(r) : (void)printf("reservation %s created\n", str(r, "id"));
		json_decref(r);
		return rc;
	}
	if ((rc = need(o, "a reservation ID", arg(o, 1))) ||
	    (rc = name_path(o, path, sizeof path, "/v1/reservations/", arg(o, 1), "")))
		return rc;
	if (!strcmp(sub, "delete")) {
		if (!(rc = call(o, "DELETE", path, NULL, &r)))
			o->json ? dump(r) : (void)printf("%s: deleted\n", arg(o, 1));
	} else if (!strcmp(sub, "show")) {
		if (!(rc = call(o, "GET", path, NULL, &r)))
			o->json ? dump(r) : rsv_show(r);
	} else
		return usage_error(o, "unknown subcommand '%s'", sub);
	json_decref(r);
	return rc;
}

/* --- fairshare, plan ------------------------------------------------------------------------------ */
/* Does some queue have a gpuHoursLeft (budgetSafe on, a budget)? */
static bool any_left(json_t *qs)
{
	size_t i;
	json_t *q;

	json_array_foreach(qs, i, q)
		if (json_object_get(q, "gpuHoursLeft"))
			return true;
	return false;
}

/* q's LEFT(GPUh): what its budget has left under budgetSafe, "?" when a
 * running job without a bound makes it unknown, "-" without a budget. */
static void left_cell(json_t *q, char *buf, size_t n)
{
	json_t *x = json_object_get(q, "gpuHoursLeft");

	if (json_is_number(x))
		snprintf(buf, n, "%.1f", json_number_value(x));
	else
		snprintf(buf, n, "%s", x ? "?" : "-");
}

static void print_fairshare(json_t *qs)
{
	size_t i;
	json_t *q;
	bool left = any_left(qs);

	printf("%-20s %-14s %9s %9s %10s %10s %9s %9s %10s %12s %12s%s\n", "QUEUE", "PARENT", "DESERVED", "FAIR",
	       "GUARANTEED", "OVER QUOTA", "ALLOCATED", "DEMAND", "EFF-WEIGHT", "USAGE(GPUh)", "BUDGET(GPUh)",
	       left ? "   LEFT(GPUh)" : "");
	json_array_foreach(qs, i, q) {
		char budget[40] = "-", used[32], rest[32] = ""; /* the subtree's usage is what it is held to */
		if (json_is_number(json_object_get(q, "gpuHourBudget"))) /* as set, as queues list shows it: 0.001 */
			snprintf(budget, sizeof budget, "%.15g%s", num(q, "gpuHourBudget"),
				 num(q, "usageGpuHours") >= num(q, "gpuHourBudget") ? " spent" : "");
		gpu_hours(used, sizeof used, num(q, "usageGpuHours"));
		if (left) {
			char cell[24];
			left_cell(q, cell, sizeof cell);
			snprintf(rest, sizeof rest, " %12s", cell);
		}
		printf("%-20s %-14s %9.1f %9.1f %10.1f %10.1f %9.1f %9.1f %10.2f %12s %12s%s\n", str(q, "queue"),
		       *str(q, "parent") ? str(q, "parent") : "-", num(q, "deserved"), num(q, "fairShare"),
		       num(q, "guaranteed"), num(q, "overQuota"), num(q, "allocated"), num(q, "demand"),
		       num(q, "weightEffective"), used, budget, rest);
	}
}

/* The guaranteed part of q's fair share, in words. */
static void explain_guaranteed(json_t *q)
{
	double d = num(q, "deserved"), dem = num(q, "demand"), g = num(q, "guaranteed");
	const char *why = d <= 0 ? "it deserves nothing"
			  : g >= fmin(d, dem) - 0.05 ? (dem < d ? "its demand caps it" : "its deserved share in full")
						     : "scaled down: its siblings' deserved shares add up to more than their parent's";
	printf("  guaranteed  %8.1f  of its deserved %.1f GPUs and demand %.1f: %s\n", g, d, dem, why);
}

/* The over-quota part: the siblings' split by effective weight. */
static void explain_over_quota(json_t *all, json_t *q)
{
	const char *parent = str(q, "parent");
	bool top = !strcmp(parent, "-");
	double usum = 0, wsum = 0;
	size_t i;
	json_t *s;

	printf("  over quota  %8.1f  of what %s%s leaves over once every sibling has its guaranteed part,\n"
	       "                       split by effective weight among the siblings that want more:\n",
	       num(q, "overQuota"), top ? "the cluster" : parent, top ? "" : "'s fair share");
	json_array_foreach(all, i, s) {
		if (strcmp(str(s, "parent"), parent))
			continue;
		usum += num(s, "usageGpuHours"), wsum += num(s, "weight");
		printf("    %-20s weight %5.2f -> %5.2f  over quota %6.1f  (demand %.1f, guaranteed %.1f)%s\n",
		       str(s, "queue"), num(s, "weight"), num(s, "weightEffective"), num(s, "overQuota"),
		       num(s, "demand"), num(s, "guaranteed"), s == q ? "  <-" : "");
	}
	if (num(q, "weight") > 0 && usum > 0 && wsum > 0)
		printf("  usage       of its siblings' decayed usage u = %.0f%% is its, against e = %.0f%% of their\n"
		       "              weight: its weight is x%.2f = 2^(-usageWeight * (u/e - 1)), within 16x either\n"
		       "              way (x1 when it used exactly its weight's share; include/fairway/fairshare.h)\n",
		       100 * num(q, "usageGpuHours") / usum, 100 * num(q, "weight") / wsum,
		       num(q, "weightEffective") / num(q, "weight"));
}

/* Which resource ran out among its siblings while it still wanted more
 * (limitedBy): GPUs, or the CPU or memory its jobs ask for, where a queue
 * sets a quota on them (include/fairway/fairshare.h). */
static void explain_limited(json_t *q)
{
	const char *r = str(q, "limitedBy"), *parent = str(q, "parent");
	bool top = !strcmp(parent, "-");

	if (!strcmp(r, "-"))
		return;
	if (!strcmp(r, "gpu"))
		printf("  limited by  gpu: the GPUs of %s%s ran out among its siblings before its demand was met\n",
		       top ? "the cluster" : parent, top ? "" : "'s fair share");
	else
		printf("  limited by  %s: the %s of %s%s ran out among its siblings; a share grows only with the\n"
		       "              %s its jobs ask for (it sets a %s quota, so %s is divided with the GPUs),\n"
		       "              so its GPUs stopped there too\n",
		       r, r, top ? "the cluster" : parent, top ? "" : "'s fair share", r, r, r);
}

/* `fairway fairshare explain NAME`: where the queue's fair share comes from. */
/* Its users' decayed usage, most first (at most 8 named): what users
 * take turns by inside the queue, with scheduler.userFairShare. */
static void explain_users(json_t *users)
{
	size_t n = json_array_size(users), shown = 0;
	bool *done = calloc(n + 1, sizeof *done);

	if (!n || !done) {
		free(done);
		return;
	}
	printf("  users       decayed GPU-hours in this queue (with userFairShare they take turns by it):");
	for (; shown < n && shown < 8; shown++) {
		size_t best = n;
		for (size_t i = 0; i < n; i++)
			if (!done[i] && (best == n || num(json_array_get(users, i), "usageGpuHours") >
							      num(json_array_get(users, best), "usageGpuHours")))
				best = i;
		done[best] = true;
		json_t *u = json_array_get(users, best);
		printf("%s %s %.1f", shown ? "," : "", *str(u, "user") ? str(u, "user") : "(no user)",
		       num(u, "usageGpuHours"));
	}
	printf(n > shown ? ", and %zu more\n" : "\n", n - shown);
	free(done);
}

/* Its GPU model caps and deserved GPUs of a model, with what its subtree
 * holds of each (the fair share itself is over all models). */
static void explain_models(json_t *q)
{
	size_t i;
	json_t *e;

	json_array_foreach(json_object_get(q, "gpuModelDeserved"), i, e)
		printf("  %-10s  %8.1f  %s GPUs deserved, %.1f held%s\n", i ? "" : "by model", num(e, "deserved"),
		       str(e, "model"), num(e, "allocated"),
		       num(e, "allocated") < num(e, "deserved") - 0.0005
			       ? ": its jobs naming the model may take the rest back from queues holding more of it "
				 "than they deserve"
			       : ": no reclaim takes it below them");
	json_array_foreach(json_object_get(q, "gpuModelLimits"), i, e)
		printf("  %-10s  %8.1f  %s GPUs at most, %.1f held\n", i ? "" : "model cap", num(e, "limit"),
		       str(e, "model"), num(e, "allocated"));
}

/* The siblings the text's over-quota lines show (q itself among them),
 * for --json: each one's weights, over-quota part, demand, guaranteed
 * part and decayed usage, under the API's names. */
static json_t *explain_siblings(json_t *all, json_t *q)
{
	static const char *const keys[] = { "weight", "weightEffective", "overQuota", "demand", "guaranteed",
					    "usageGpuHours", NULL };
	const char *parent = str(q, "parent");
	json_t *out = json_array(), *s;
	size_t i;

	json_array_foreach(all, i, s) {
		json_t *e = json_object();
		if (strcmp(str(s, "parent"), parent)) {
			json_decref(e);
			continue;
		}
		json_object_set_new(e, "queue", json_string(str(s, "queue")));
		for (int k = 0; keys[k]; k++)
			if (json_object_get(s, keys[k]))
				json_object_set(e, keys[k], json_object_get(s, keys[k]));
		json_array_append_new(out, e);
	}
	return out;
}

static int explain_fairshare(struct opts *o, json_t *all, const char *name)
{
	size_t i;
	json_t *q, *hit = NULL;

	json_array_foreach(all, i, q)
		if (!strcmp(str(q, "queue"), name))
			hit = q;
	if (!hit) { /* as the daemon answers an unknown name (call) */
		fprintf(stderr, "fairway %s: error: 404: field name: no queue named \"%s\" (`fairway fairshare` lists "
			"them)\n", o->cmd, name);
		return 2;
	}
	if (o->json) { /* the queue's entry, with the siblings the text shows */
		json_t *x = json_copy(hit);
		json_object_set_new(x, "siblings", explain_siblings(all, hit));
		dump(x);
		json_decref(x);
		return 0;
	}
	bool top = !strcmp(str(hit, "parent"), "-");

	printf("queue %s (%s%s): fair share %.1f GPUs = guaranteed %.1f + over quota %.1f; allocated %.1f\n",
	       name, top ? "top level" : "under ", top ? "" : str(hit, "parent"), num(hit, "fairShare"),
	       num(hit, "guaranteed"), num(hit, "overQuota"), num(hit, "allocated"));
	explain_guaranteed(hit);
	explain_over_quota(all, hit);
	explain_limited(hit);
	if (json_is_number(json_object_get(hit, "limit")))
		printf("  limit       %8.1f  GPUs at most, whatever the split gives\n", num(hit, "limit"));
	explain_models(hit);
	explain_users(json_object_get(hit, "users"));
	return 0;
}

static int cmd_fairshare(struct opts *o)
{
	const char *sub = arg(o, 0) ? arg(o, 0) : "list";
	json_t *r;
	int rc;

	if (!strcmp(sub, "explain") && (rc = need(o, "a queue NAME", arg(o, 1))))
		return rc;
	if ((rc = call(o, "GET", "/v1/fairshare", NULL, &r)))
		return rc;
	if ((!o->json || !strcmp(sub, "explain")) && (rc = listing(o, r, "queues", false))) {
		json_decref(r);
		return rc;
	}
	if (!strcmp(sub, "explain"))
		rc = explain_fairshare(o, json_object_get(r, "queues"), arg(o, 1));
	else
		o->json ? dump(r) : print_fairshare(json_object_get(r, "queues"));
	json_decref(r);
	return rc;
}

/* A plan r that says "truncated": one line on stderr naming the lists
 * --limit cut (one shorter than --limit was not), and which flags show
 * more or fewer. */
static void note_plan_cut(struct opts *o, json_t *r)
{
	size_t nd = json_array_size(json_object_get(r, "decisions")), np = json_array_size(json_object_get(r, "pending"));
	size_t lim = flag(o, "--limit") ? (size_t)strtoull(flag(o, "--limit"), NULL, 10) : 0;
	bool d = nd >= lim, p = np >= lim; /* a list shorter than --limit was not cut */
	char what[96];

	if (!json_is_true(json_object_get(r, "truncated")))
		return;
	if (d && p)
		snprintf(what, sizeof what, "%zu decision%s and %zu waiting job%s", nd, nd == 1 ? "" : "s", np,
			 np == 1 ? "" : "s");
	else
		snprintf(what, sizeof what, "%zu %s%s", d ? nd : np, d ? "decision" : "waiting job",
			 (d ? nd : np) == 1 ? "" : "s");
	fprintf(stderr, "fairway plan: the first %s only, more match: --limit N (up to 100000) shows more, "
			"--kind/--queue/--job/--node fewer\n", what);
}

/* A decision's job, or for a drain (which has none: "job" is "") its
 * node. */
static const char *job_or_node(json_t *x)
{
	return json_string_length(json_object_get(x, "job")) ? str(x, "job") : str(x, "node");
}

/* `fairway plan --server URL`: the daemon's last plan (GET /v1/plan),
 * narrowed by --kind, --queue, --job, --node and --limit; the fair share
 * stays whole. */
static int cmd_plan(struct opts *o)
{
	static const char *const filters[][2] = { { "--kind", "kind" }, { "--queue", "queue" }, { "--job", "job" },
						  { "--node", "node" }, { "--limit", "limit" }, { NULL, NULL } };
	char path[1024], at[FW_TIME_TEXT_MAX];
	json_t *r, *x;
	size_t i;
	int rc = query_path(o, "/v1/plan", filters, path, sizeof path);

	if (rc || (rc = call(o, "GET", path, NULL, &r)))
		return rc;
	if (o->json || (rc = listing(o, r, "decisions", false)) || (rc = listing(o, r, "pending", false)) ||
	    (rc = listing(o, r, "fairshare", true))) {
		if (!rc)
			dump(r);
		json_decref(r);
		return rc;
	}
	printf("cycle %.0f at %s (%.1f ms)\n\nDECISIONS\n", num(r, "cycle"), utc(at, sizeof at, json_object_get(r, "at")),
	       num(r, "seconds") * 1000);
	json_array_foreach(json_object_get(r, "decisions"), i, x)
		printf("  %-8s %-24s %-8s %s\n", str(x, "kind"), job_or_node(x), str(x, "outcome"), str(x, "text"));
	printf("\nWAITING\n");
	json_array_foreach(json_object_get(r, "pending"), i, x)
		printf("  %-24s %-12s %s\n", str(x, "name"), str(x, "queue"),
		       json_object_get(x, "reasonText") ? str(x, "reasonText") : "not yet considered");
	printf("\nFAIR SHARE\n");
	print_fairshare(json_object_get(r, "fairshare"));
	note_plan_cut(o, r);
	json_decref(r);
	return 0;
}

/* --- decisions -------------------------------------------------------------------------------------- */
/* An empty decision log on stderr, as `jobs list` says why it lists
 * nothing: the filters that matched nothing, or a log with no rows yet. */
static void note_no_decisions(struct opts *o)
{
	static const char *const names[] = { "--since", "--job", "--kind" };
	char given[256] = "";
	size_t n = 0;

	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (flag(o, names[i]) && n < sizeof given)
			n += (size_t)snprintf(given + n, sizeof given - n, "%s%s %.60s", n ? " " : "", names[i],
					      flag(o, names[i]));
	if (*given)
		fprintf(stderr, "fairway decisions: nothing listed: no decision matches %s; widen --since or drop a "
				"filter\n", given);
	else
		fprintf(stderr, "fairway decisions: nothing listed: the daemon has logged no decision yet (it logs "
				"each cycle's starts, evictions, reservations and drains)\n");
}

/* `fairway decisions`: the decision log, the last --limit rows (default
 * 100) of the last --since DURATION, of a --job and a --kind. */
static int cmd_decisions(struct opts *o)
{
	static const char *const filters[][2] = { { "--job", "job" }, { "--kind", "kind" }, { "--limit", "limit" },
						  { NULL, NULL } };
	char base[64] = "/v1/decisions", path[1024];
	json_t *r, *x;
	size_t i;
	double ago;
	int rc;

	if (flag(o, "--since")) {
		if (!fw_cli_duration(flag(o, "--since"), &ago) || ago < 0 || ago != floor(ago) || ago > 10 * SECS_MAX)
			return usage_error(o, "--since '%s': expected a DURATION like 90s, 10m, 2h, 1d or 1h30m "
							  "(the rows of that last stretch), at most 3650d",
						  flag(o, "--since"));
		/* counted back from the daemon's clock, not this machine's */
		snprintf(base, sizeof base, "/v1/decisions?since=-%lld", (long long)ago);
	}
	if ((rc = query_path(o, base, filters, path, sizeof path)))
		return rc;
	if ((rc = call(o, "GET", path, NULL, &r)))
		return rc;
	if (o->json || (rc = listing(o, r, "decisions", false))) {
		if (!rc)
			dump(r);
		json_decref(r);
		return rc;
	}
	printf("%-9s %6s %-8s %-24s %s\n", "WHEN", "CYCLE", "KIND", "JOB/NODE", "WHAT");
	json_array_foreach(json_object_get(r, "decisions"), i, x) {
		char w[32];
		when(w, sizeof w, json_object_get(x, "at"));
		printf("%-9s %6.0f %-8s %-24s %s\n", w, num(x, "cycle"), str(x, "kind"),
		       json_object_get(x, "job") ? str(x, "job") : str(x, "node"), str(x, "text"));
	}
	note_cut(r, "decisions", "the last", "--since/--job/--kind");
	if (!json_array_size(json_object_get(r, "decisions")))
		note_no_decisions(o);
	json_decref(r);
	return 0;
}

/* --- stats ---------------------------------------------------------------------------------------- */
/* A time for the stats tables: "-" when null; a cycle's (ms) "12.0 ms"
 * under a second; else as the other tables show spans ("45s", "20m"). */
static const char *span_of(json_t *v, bool ms, char *buf, size_t n)
{
	double x = json_number_value(v);

	if (!json_is_number(v))
		snprintf(buf, n, "-");
	else if (ms && x < 1)
		snprintf(buf, n, "%.1f ms", 1000 * x);
	else
		fw_render_span((fw_time)llround(x), buf, n);
	return buf;
}

/* The cycle period as `fairway serve --period` takes it: "-" when null;
 * whole seconds in the core's words ("1s", "1m", "2m30s": span.h), a
 * fraction as the flag writes one ("500ms", "2.5s"). */
static const char *period_of(json_t *v, char *buf, size_t n)
{
	double x = json_number_value(v);

	if (!json_is_number(v) || !(x > 0 && x < 1e15)) /* at most 1h: never cut */
		snprintf(buf, n, "-");
	else if (x == floor(x))
		fw_span_format((int64_t)x, buf, n);
	else if (x < 1)
		snprintf(buf, n, "%gms", 1000 * x);
	else
		snprintf(buf, n, "%gs", x);
	return buf;
}

/* A quantile's bound ("<= 5m", "<= 24h00m"): "-" with no start, "> 168h00m"
 * past the last bucket (7 days, FW_WAIT_BUCKETS in connectors/serve
 * serve_int.h), in hours as every span of the client. */
static const char *bound_of(json_t *w, const char *key, char *buf, size_t n)
{
	char t[32];

	if (num(w, "starts") == 0)
		snprintf(buf, n, "-");
	else if (!json_is_integer(json_object_get(w, key)))
		snprintf(buf, n, "> %s", fw_render_span(7 * 86400, t, sizeof t));
	else
		snprintf(buf, n, "<= %s", fw_render_span(json_integer_value(json_object_get(w, key)), t, sizeof t));
	return buf;
}

/* `fairway stats` (sdiag's questions for fairway serve): the daemon's
 * counters since it started, its time to start by job size and per
 * queue. */
static int cmd_stats(struct opts *o)
{
	json_t *r, *w, *cy, *de;
	char a[32], b[32], c[32];
	size_t i;
	int rc;

	if ((rc = call(o, "GET", "/v1/stats", NULL, &r)))
		return rc;
	if (o->json || (rc = listing(o, r, "waits", true)) || (rc = listing(o, r, "queues", true))) {
		if (!rc)
			dump(r);
		json_decref(r);
		return rc;
	}
	cy = json_object_get(r, "cycles");
	de = json_object_get(r, "decisions");
	printf("fairway serve (%s backend), up %s, a cycle every %s\n", str(r, "backend"),
	       span_of(json_object_get(r, "uptimeSeconds"), false, a, sizeof a),
	       period_of(json_object_get(r, "periodSeconds"), b, sizeof b));
	printf("cycles      %.0f applied, %.0f stale (planned again), %.0f failed\n", num(cy, "applied"),
	       num(cy, "stale"), num(cy, "failed"));
	printf("cycle time  mean %s, last %s, longest %s; %.0f%% of all cycles' time holding the state lock\n",
	       span_of(json_object_get(cy, "meanSeconds"), true, a, sizeof a),
	       span_of(json_object_get(cy, "lastSeconds"), true, b, sizeof b),
	       span_of(json_object_get(cy, "maxSeconds"), true, c, sizeof c), 100 * num(cy, "lockedShare"));
	printf("decisions   %.0f starts, %.0f evictions, %.0f ended at a run-time limit, %.0f reservations,\n"
	       "            %.0f drains, %.0f nodes released, %.0f refused by the backend\n",
	       num(de, "starts"), num(de, "evictions"), num(de, "timedOut"), num(de, "reservations"), num(de, "drains"),
	       num(de, "releases"), num(de, "refused"));
	printf("api         %.0f requests, %.0f errors\n\n", num(json_object_get(r, "api"), "requests"),
	       num(json_object_get(r, "api"), "errors"));
	printf("%-14s %8s %10s %10s %10s\n", "TIME TO START", "STARTS", "MEAN", "P50", "P95");
	json_array_foreach(json_object_get(r, "waits"), i, w) {
		char g[32];
		snprintf(g, sizeof g, "%s GPUs", str(w, "gpus"));
		printf("%-14s %8.0f %10s %10s %10s\n", g, num(w, "starts"),
		       span_of(json_object_get(w, "meanSeconds"), false, a, sizeof a), bound_of(w, "p50AtMost", b, sizeof b),
		       bound_of(w, "p95AtMost", c, sizeof c));
	}
	if (json_array_size(json_object_get(r, "queues")))
		printf("\n%-20s %10s %11s %9s %8s %10s %10s\n", "QUEUE", "GPU-HOURS", "LOST GPU-H", "EVICTIONS",
		       "STARTS", "MEAN WAIT", "P95 WAIT");
	json_array_foreach(json_object_get(r, "queues"), i, w)
		printf("%-20s %10.2f %11.2f %9.0f %8.0f %10s %10s\n", str(w, "queue"), num(w, "gpuHours"),
		       num(w, "lostGpuHours"), num(w, "evictions"), num(w, "starts"),
		       span_of(json_object_get(w, "meanSeconds"), false, a, sizeof a), bound_of(w, "p95AtMost", b, sizeof b));
	printf("\nSince the daemon started.  Time to start: from submission, or from the last\n"
	       "requeue after an eviction.  P50/P95: at most the bound of the histogram bucket\n"
	       "that holds them (/metrics fairway_wait_seconds).\n");
	json_decref(r);
	return 0;
}

/* --- entry ------------------------------------------------------------------------------------------ */
/* Each command's own --help (as squeue --help is about squeue): its
 * usage, its flags, examples, then the flags every command takes. */
static const char queues_help[] =
	"usage: fairway queues [list | show NAME | set NAME [flags] | create NAME [flags] | delete NAME]\n"
	"\n"
	"The daemon's queues: list them (a table), show one (in words), change one,\n"
	"create or replace one, delete one.\n"
	"\n"
	"queues list:         OQ-WEIGHT is the configured GPU over-quota weight\n"
	"                     (--weight); `fairway fairshare`'s EFF-WEIGHT is the\n"
	"                     one the last split used, after decayed usage\n"
	"queues show NAME:    its parent, deserved and limit GPUs, weight, priority,\n"
	"                     minRuntime, maxRuntime, budget and GPU-hours used,\n"
	"                     model tables; the last plan's fair share, allocated\n"
	"                     GPUs and demand; its children (--json: the API's\n"
	"                     GET /v1/queues/NAME)\n"
	"queues set NAME:     --parent P (--parent '' makes it top-level)\n"
	"                     --deserved-gpus N --limit-gpus N --weight W\n"
	"                     --priority P --min-runtime S\n"
	"                     --default-runtime S --default-checkpoint-interval S\n"
	"                     (assumed for its jobs that give none)\n"
	"                     --max-runtime S (run-time limit: its running jobs, and\n"
	"                     those of the queues under it, end after S seconds,\n"
	"                     state timeout, not requeued; 0 removes it)\n"
	"                     --preemptible false (its running jobs, and those of\n"
	"                     the queues under it, are never evicted)\n"
	"                     --gpu-model-limits H100=16,A100=8 (GPUs of each model\n"
	"                     it and the queues under it may hold; MODEL=none lifts\n"
	"                     one, none alone all; a job naming no model goes on a\n"
	"                     model whose limit holds it)\n"
	"                     --gpu-model-deserved H100=16 (which models its\n"
	"                     deserved GPUs are, at most --deserved-gpus in all:\n"
	"                     its jobs naming the model may evict those of a queue\n"
	"                     holding more of it than it deserves; MODEL=none\n"
	"                     removes one, none alone all)\n"
	"                     --gpu-hour-budget H (GPU-hours, decimals allowed:\n"
	"                     while it and the queues under it have used H, their\n"
	"                     decayed usage, none of their jobs starts, reason\n"
	"                     over_budget; running jobs run on; 0 removes it)\n"
	"                     changes only the flags given, the rest stays (PATCH)\n"
	"                     or --file patch.json, alone: the body as it is, with\n"
	"                     none of the flags above beside it\n"
	"queues create NAME:  the same flags; a new queue, or a whole replacement:\n"
	"                     what is not given takes its default (PUT)\n"
	"\n"
	"examples:\n"
	"  fairway queues list\n"
	"  fairway queues set llm --deserved-gpus 64 --max-runtime 2d\n"
	"  fairway queues create team-a --parent research --weight 2\n"
	"  fairway queues set team-a --parent ''          # make it a top-level queue\n"
	"\n";

/* The jobs subcommands' flags, each block in `fairway jobs --help` and in
 * its own `fairway jobs SUB --help`. */
#define JOBS_SUBMIT_FLAGS \
	"jobs submit:         --queue Q --gpus N [--count TASKS] [--runtime S]\n" \
	"                     [--test-only]  (as sbatch --test-only: whether it would\n" \
	"                     start now and where, or why it would wait and when it\n" \
	"                     is expected to start; nothing is submitted)\n" \
	"                     [--gpu-fraction F]  (with --gpus 1: a share of one GPU,\n" \
	"                     0.001..1)\n" \
	"                     [--name N] [--user U] [--cpu C] [--memory MiB|80Gi]\n" \
	"                     (--user: whose job it is, for fair share between the\n" \
	"                     users of a queue; default your login name, as sbatch;\n" \
	"                     --user '' for none)\n" \
	"                     [--gpu-model M]\n" \
	"                     [--priority P]  (higher starts first within its queue;\n" \
	"                     -1000000..1000000, default 0)\n" \
	"                     [--required-level rack]  (the whole job inside one rack:\n" \
	"                     a level of the cluster's topology, or node)\n" \
	"                     [--preferred-level rack]  (best effort: inside one rack\n" \
	"                     if it can, else wider; default: one node first)\n" \
	"                     [--spread]  (its tasks on the emptiest nodes, not the\n" \
	"                     fullest that fit)\n" \
	"                     [--min-member N]  (elastic: it starts with at least N of\n" \
	"                     its --count tasks, as many as fit; default all)\n" \
	"                     [--no-preemptible]  (never evicted to make room: reclaim,\n" \
	"                     preemption and consolidation pass it over; default\n" \
	"                     --preemptible, as the API's: it may be evicted)\n" \
	"                     [--checkpoint-interval S]  (it saves every S s: evict it\n" \
	"                     before jobs that would lose more work)\n" \
	"                     [--max-runtime S]  (its own run-time limit, as sbatch\n" \
	"                     --time: after S s running it ends, state timeout, not\n" \
	"                     requeued; its queues' maxRuntime binds too, the\n" \
	"                     smallest wins; jobs why shows the one that binds)\n" \
	"                     [--exit-code N]  (local backend: a non-zero code fails the job)\n" \
	"                     [--node-selector gpu=h100,ib=]  (only nodes with all these\n" \
	"                     labels, as in Kubernetes; KEY= a label without a value;\n" \
	"                     fairway nodes list --json shows each node's labels)\n" \
	"                     [--array 0-99]  (a job array, as sbatch --array: one job\n" \
	"                     per index, named NAME_<index>, all submitted or none;\n" \
	"                     A-B, A-B:STEP or a list 1,3,5-7; indices 0..1000; no\n" \
	"                     %N throttle)\n" \
	"                     [--slice 4:nvlink]  (the tasks in slices of 4, each inside\n" \
	"                     one NVLink domain: a model replica's ranks together,\n" \
	"                     the replicas anywhere in the job's domain)\n" \
	"                     or --file job.json, alone: the job as the API takes it,\n" \
	"                     every field of it (docs/openapi.yaml, JobSubmit; there\n" \
	"                     each task group may take a nodeSelector and a\n" \
	"                     slice of its own: {\"tasks\": [{\"gpus\": 1, \"nodeSelector\":\n" \
	"                     {...}, \"slice\": {\"size\": 2, \"required\": \"rack\"}}, ...]})\n" \
	"                     A job the fleet could never hold (a task bigger than any\n" \
	"                     node, more tasks than the fleet, its required level or\n" \
	"                     the nodes its nodeSelector meets hold) is refused,\n" \
	"                     naming what to change, as sbatch's\n" \
	"                     \"Requested node configuration is not available\"\n"
#define JOBS_LIST_FLAGS \
	"jobs list --state S: pending, running, done, failed, cancelled, timeout (ended\n" \
	"                     by its run-time limit: its own or its queue's) or all;\n" \
	"                     without it, the pending and running jobs\n" \
	"          --queue Q: the jobs of queue Q only (not of the queues under it);\n" \
	"          --user U:  the jobs of user U only (as squeue -p Q -u U)\n" \
	"          --me:      your own jobs: those of your login name (squeue --me)\n" \
	"          --reason R,...: the jobs whose reason is one of these, comma-separated,\n" \
	"                     as the API spells them (gpu_model, over_quota,\n" \
	"                     has_reservation, ...; a misspelt one is refused with the\n" \
	"                     list): which jobs wait for what (as squeue -t PD -R)\n" \
	"          --array NAME: the tasks of job array NAME only (NAME_<index>)\n" \
	"          --limit N: at most N jobs (default 1000, up to 100000); when more\n" \
	"                     match, the table says so on stderr (--json: \"truncated\"\n" \
	"                     and \"nextOffset\")\n" \
	"          --offset N: pass over the first N matching jobs (the next page:\n" \
	"                     --offset 1000 --limit 1000); jobs are in the plan's\n" \
	"                     order, then those it has not seen yet\n"
#define JOBS_SHOW_WHY \
	"jobs show NAME:      a job in words: its state, why it waits or where it runs,\n" \
	"                     its run-time limit, when it was submitted, started and\n" \
	"                     ended (and where it ran), what it asked for, its last\n" \
	"                     decisions (--json: the API's JSON); for a job array's\n" \
	"                     NAME, the array as a whole: its tasks, their states,\n" \
	"                     why they wait and when they are expected to start\n" \
	"                     (--json: its JSON, \"kind\": \"array\")\n" \
	"jobs why NAME:       one screen: state, its run-time limit, why it waits, when it\n" \
	"                     is expected to start (a job its run-time limit ended: why\n" \
	"                     it ended, its own limit or its queue's; an ended job: when\n" \
	"                     it started and ended, and the nodes it ran on); an\n" \
	"                     array's NAME: as jobs show\n"
#define JOBS_CANCEL \
	"jobs cancel NAME...: each job named; an array's name: all its live tasks\n"

static const char jobs_help[] =
	"usage: fairway jobs [list [--state S] [--queue Q] [--user U | --me] [--reason R,...] [--array NAME]\n"
	"                          [--limit N] [--offset N] |\n"
	"                     show NAME | why NAME | submit FLAGS | cancel NAME...]\n"
	"\n"
	"The daemon's jobs: list them (a table, as squeue), show one (in words),\n"
	"why one waits (one screen), submit one or an array of them (as sbatch),\n"
	"cancel some (as scancel; the name of a job array cancels every task of it\n"
	"still pending or running).  Each subcommand's own help, with what it\n"
	"prints: fairway jobs SUB --help (fairway help jobs SUB).\n"
	"\n"
	JOBS_SUBMIT_FLAGS
	JOBS_LIST_FLAGS
	JOBS_SHOW_WHY
	JOBS_CANCEL
	"\n"
	"examples:\n"
	"  fairway jobs submit --queue llm --gpus 8 --count 2 --runtime 1h\n"
	"  fairway jobs submit --queue llm --gpus 8 --runtime 90m --max-runtime 2h\n"
	"  fairway jobs submit --queue llm --gpus 4 --count 8 --slice 4:nvlink --runtime 12h\n"
	"  fairway jobs submit --queue llm --gpus 1 --runtime 30m --name sweep --array 0-99\n"
	"  fairway jobs why job-7\n"
	"  fairway jobs cancel sweep\n"
	"\n";

static const char jobs_submit_help[] =
	"usage: fairway jobs submit --queue Q --gpus N [flags] | --file job.json\n"
	"\n"
	"Submit a job, or a job array (one job per index), to the daemon (as sbatch);\n"
	"with --test-only, ask what its next cycle would do with it instead.\n"
	"\n"
	JOBS_SUBMIT_FLAGS
	"\n"
	"what it prints:\n"
	"  submitted job-7                       the job's name (the daemon's job-N\n"
	"                                        without --name)\n"
	"  submitted array sweep: 100 tasks (sweep_0 .. sweep_99)\n"
	"                                        an array's tasks, consecutive ones as\n"
	"                                        FIRST .. LAST\n"
	"  job job-7 would start now (...) on h100-008\n"
	"  job job-7 would wait (...): REASON    --test-only: where it would start,\n"
	"  expected start: in 4h20m (...Z)       or why it waits and when it should\n"
	"                                        start; nothing was submitted\n"
	"  --json: the daemon's answer (the job; an array's arrayOf, count, names)\n"
	"\n"
	"examples:\n"
	"  fairway jobs submit --queue llm --gpus 8 --count 2 --runtime 1h\n"
	"  fairway jobs submit --queue llm --gpus 1 --runtime 30m --name sweep --array 0-99\n"
	"  fairway jobs submit --queue vision --gpus 8 --count 4 --test-only\n"
	"\n";

static const char jobs_list_help[] =
	"usage: fairway jobs list [--state S] [--queue Q] [--user U | --me] [--reason R,...] [--array NAME]\n"
	"                         [--limit N] [--offset N]\n"
	"\n"
	"The daemon's jobs as a table (as squeue), in the last plan's order, then\n"
	"the jobs it has not seen yet.  The filters narrow it; given together, a job\n"
	"is listed when it passes every one.\n"
	"\n"
	JOBS_LIST_FLAGS
	"\n"
	"what it prints: a row a job: JOB, QUEUE, USER, STATE, GPUS, REASON (why it\n"
	"waits, as the API spells it; - for none) and START: a waiting job's expected\n"
	"start (unknown when none can be foreseen), a running or ended one's start.\n"
	"A list cut by --limit says so on stderr; an empty one whose filters explain\n"
	"it (a reason only ended jobs carry without --state, an array whose tasks\n"
	"all ended or that is not known) says why on stderr.  --json: the API's list,\n"
	"each task of an array with its arrayOf.\n"
	"\n"
	"examples:\n"
	"  fairway jobs list --queue llm --reason over_quota,fairshare_order\n"
	"  fairway jobs list --array sweep --state all\n"
	"  fairway jobs list --reason time_limit --state timeout\n"
	"\n";

static const char jobs_show_help[] =
	"usage: fairway jobs show NAME | fairway jobs why NAME\n"
	"\n"
	"One job, or one job array as a whole.\n"
	"\n"
	JOBS_SHOW_WHY
	"\n"
	"what a job prints (jobs show):\n"
	"  job job-7  (queue llm, user alice, 8 GPUs, runtime 1h00m)\n"
	"  state: running\n"
	"  started 5m ago on h100-003                  where it runs; a waiting job:\n"
	"  expected to end in 55m                      why it waits, when it should start\n"
	"  submitted: 6m ago (...Z, UTC)\n"
	"  priority: 0                                 and what else it asked for\n"
	"  history:                                    its last ten decisions\n"
	"    5m ago     start    started: 8 GPUs\n"
	"\n"
	"what an ended job adds (jobs show, jobs why):\n"
	"  started: 1h05m ago (...Z)\n"
	"  ended: 5m ago (...Z)\n"
	"  ran on h100-003, h100-004                   the nodes of its last run\n"
	"\n"
	"what an array prints:\n"
	"  job array sweep  (queue llm, user alice, 1 GPU each)\n"
	"  100 tasks (sweep_0 .. sweep_99), indices 0-99\n"
	"  states: 60 pending, 38 running, 2 done      tasks by state\n"
	"  submitted: 5m ago (the earliest task)\n"
	"  waiting for: 60 over_quota                  the waiting tasks by reason\n"
	"  expected starts: in 2m .. in 1h              the earliest and the latest\n"
	"                                              of the waiting tasks'\n"
	"\n"
	"examples:\n"
	"  fairway jobs why job-7\n"
	"  fairway jobs show job-7 --json\n"
	"  fairway jobs show sweep\n"
	"  fairway jobs show sweep --json\n"
	"\n";

static const char jobs_cancel_help[] =
	"usage: fairway jobs cancel NAME...\n"
	"\n"
	"Cancel jobs (as scancel): each job named, whatever the others' outcome; a\n"
	"job array's name cancels every task of it still pending or running, in one\n"
	"go.  A task alone is cancelled by its own name (sweep_7).  Needs the\n"
	"daemon's token (--token-file).\n"
	"\n"
	JOBS_CANCEL
	"\n"
	"what it prints: a line a name: \"job-7: cancelled\", or for an array\n"
	"\"sweep: cancelled 98 tasks of the array (sweep_0 .. sweep_97)\"; a job\n"
	"that has ended, or no such job, on stderr (exit 2 for the first that\n"
	"failed).  --json: the daemon's answer (for several names, in one array).\n"
	"\n"
	"examples:\n"
	"  fairway jobs cancel job-1 job-2 job-3\n"
	"  fairway jobs cancel sweep\n"
	"\n";

static const char nodes_help[] =
	"usage: fairway nodes [list [--health S,...] | show NAME |\n"
	"                      health NAME --healthy|--unhealthy [--reason R] [--bad-gpus 0,3]]\n"
	"\n"
	"The fleet as the daemon's last cycle saw it (as sinfo), one node in words\n"
	"(as scontrol show node), or a health report for one node (as scontrol\n"
	"update state=drain).\n"
	"\n"
	"nodes show NAME:     its model, GPUs allocated of its total, whether it takes\n"
	"                     work and when it leaves or comes back, its health word\n"
	"                     and reason, bad GPUs, incidents, topology and labels\n"
	"                     (--json: the API's GET /v1/nodes/NAME)\n"
	"nodes list --health S: only the nodes in the states S, comma-separated, of\n"
	"                     healthy, suspect, unhealthy, draining, degraded (some GPUs\n"
	"                     bad), lemon (fails again and again): all but healthy is\n"
	"                     every node with a problem, as sinfo -R; the totals below\n"
	"                     stay the fleet's\n"
	"nodes list:          STATE is schedulable, held (takes no work) or back in T\n"
	"                     (held until a maintenance window or reservation ends:\n"
	"                     estimates count on it from then), or leaves in T (it\n"
	"                     takes only work that ends by then: a reservation to\n"
	"                     come in the backend, e.g. Slurm's); HEALTH is UNHEALTHY\n"
	"                     (takes no work), suspect (on probation: no big gangs),\n"
	"                     degraded (healthy, some GPUs bad and left out) or\n"
	"                     healthy (a report with every GPU bad makes a node\n"
	"                     UNHEALTHY); BAD is the GPUs reported bad (e.g. 1,3 or\n"
	"                     0-7; - for none); REASON is why the node is in its\n"
	"                     HEALTH: the reason of the report that explains it\n"
	"                     (an agent's, `nodes health --reason`), else fairway's\n"
	"                     own note, e.g. of job failures on the node (- for none)\n"
	"nodes health NAME:   a health report: --healthy or --unhealthy (it takes no\n"
	"                     work), [--reason R] (shown as REASON), [--bad-gpus 0,3]\n"
	"                     (GPUs that must not be used: the rest stay in use)\n"
	"\n"
	"examples:\n"
	"  fairway nodes list --health unhealthy,suspect,draining\n"
	"  fairway nodes health h100-003 --unhealthy --reason 'XID 79' --bad-gpus 5\n"
	"\n";

static const char reservations_help[] =
	"usage: fairway reservations [list [--all] | show ID | create FLAGS | delete ID]\n"
	"\n"
	"Maintenance windows and queue or job reservations (as scontrol create\n"
	"reservation): list, show one, create one, delete one.\n"
	"\n"
	"reservations list:   those not yet ended; --all the ended ones too\n"
	"reservations show ID: its kind, what it is for, start and end (relative, as\n"
	"                     the list has them, and as Unix times), nodes and\n"
	"                     reason (--json: the API's GET /v1/reservations/ID)\n"
	"reservations create: --kind maintenance|queue|job --nodes a,b --start +10m --end +2h\n"
	"                     [--queue Q | --job J] [--reason TEXT]\n"
	"                     (--start, --end: +DURATION from now (+1h30m), or a Unix\n"
	"                     time in whole seconds, within 10 years of now; 2h\n"
	"                     without the + is refused; --end not past)\n"
	"                     [--id ID] (default: the daemon names it rsv-N)\n"
	"\n"
	"examples:\n"
	"  fairway reservations create --kind maintenance --nodes h100-000,h100-001 --start +1h --end +3h --reason 'BIOS update'\n"
	"  fairway reservations create --kind queue --queue llm --nodes h100-004 --start +10m --end +1d\n"
	"\n";

static const char fairshare_help[] =
	"usage: fairway fairshare [list | explain NAME]\n"
	"\n"
	"fairshare list:       each queue's deserved GPUs, fair share, allocation,\n"
	"                      EFF-WEIGHT (the over-quota weight the split used:\n"
	"                      that of its dominant resource, after decayed usage),\n"
	"                      decayed usage and budget (as sshare)\n"
	"fairshare explain Q:  how queue Q's fair share was reached: what it is\n"
	"                      guaranteed, its over-quota weight and why, its users'\n"
	"                      usage, its per-model caps\n"
	"\n"
	"examples:\n"
	"  fairway fairshare\n"
	"  fairway fairshare explain llm\n"
	"\n";

static const char plan_help[] =
	"usage: fairway plan --server URL [--kind K,...] [--queue Q] [--job NAME] [--node N] [--limit N]\n"
	"\n"
	"plan --server URL:   the daemon's last plan: its decisions and waiting jobs,\n"
	"                     --kind start,evict,reserve,drain,timeout,pending (some\n"
	"                     of them; timeout: a run-time limit's ending),\n"
	"                     --queue Q, --job NAME (their decisions and waiting\n"
	"                     jobs), --node N (the decisions that name node N; no\n"
	"                     waiting job), --limit N (at most N of each; when more\n"
	"                     match, stderr says so, --json: \"truncated\"); the\n"
	"                     cycle and the FAIR SHARE table stay whole\n"
	"\n"
	"examples:\n"
	"  fairway plan --server http://127.0.0.1:8642 --kind evict,drain --node h100-003\n"
	"  fairway plan --server http://127.0.0.1:8642 --kind pending --queue llm --limit 20\n"
	"(without --server, `fairway plan --help`: a cycle of its own on a config)\n"
	"\n";

static const char decisions_help[] =
	"usage: fairway decisions [--since DURATION] [--job NAME] [--kind K] [--limit N]\n"
	"\n"
	"decisions:           what the daemon decided and applied, from its decision log\n"
	"                     (the last --limit rows, default 100): --since 1h (that\n"
	"                     last stretch, by the daemon's clock; 1h30m too), --job NAME,\n"
	"                     --kind start|evict|timeout|reserve|drain|requeue (timeout:\n"
	"                     a job ended by its run-time limit, not an eviction).\n"
	"                     WHEN is relative (--json: Unix times)\n"
	"\n"
	"examples:\n"
	"  fairway decisions --since 1h --kind evict\n"
	"  fairway decisions --job job-7\n"
	"\n";

static const char stats_help[] =
	"usage: fairway stats\n"
	"\n"
	"The daemon's counters since it started (as sdiag): its cycles (applied,\n"
	"stale, failed) and their times, its decisions, API requests and errors,\n"
	"the time jobs took to start by job size, and each queue's GPU-hours,\n"
	"lost GPU-hours and evictions.  It takes no flags of its own.\n"
	"\n"
	"examples:\n"
	"  fairway stats\n"
	"  fairway stats --json | jq .cycles\n"
	"  fairway --server http://head:8642 stats\n"
	"\n";

/* The rules of each command's number and duration flags. */
static const char queues_numbers_help[] =
	"Numbers are decimal digits (no exponent, no hex); --priority is a whole\n"
	"number and refuses fractions and numbers out of its range.  GPUs\n"
	"(--deserved-gpus, --limit-gpus, --gpu-model-limits, --gpu-model-deserved)\n"
	"take at most 3 decimals (0.001 GPU, as the daemon keeps them): 2.5555 is\n"
	"refused, not rounded.  Seconds flags (--min-runtime, --default-runtime,\n"
	"--max-runtime, --default-checkpoint-interval) also take a DURATION: 90s,\n"
	"10m, 2h, 1d, 1h30m (as the config's); at most 365 days.\n"
	"\n";

static const char jobs_numbers_help[] =
	"Numbers are decimal digits (no exponent, no hex).  Whole-number flags\n"
	"(--gpus 0..16, --count 1..100000, --priority, --exit-code, --min-member)\n"
	"refuse fractions and numbers out of their range.  --memory takes MiB (512)\n"
	"or 512Mi, 80Gi, 1Ti.  --gpu-fraction and --cpu take at most 3 decimals\n"
	"(0.001, as the daemon keeps them): 0.0015 is refused, not rounded.\n"
	"Seconds flags (--runtime, --checkpoint-interval, --max-runtime)\n"
	"also take a DURATION: 90s, 10m, 2h, 1d, 1h30m (as the config's); at most\n"
	"365 days.\n"
	"\n";

static const char common_help[] =
	"common flags (every command that talks to `fairway serve`; before the\n"
	"command or after it: fairway --server URL jobs list):\n"
	"  --server URL       the daemon's base URL, default $FAIRWAY_SERVER or\n"
	"                     http://127.0.0.1:8642 (a trailing / or /v1 is dropped)\n"
	"  --token-file FILE  default $FAIRWAY_TOKEN_FILE or fairway-state/token\n"
	"  --json             print the API's own JSON (docs/openapi.yaml)\n"
	"Reads need nothing; changes need the daemon's bearer token (--token-file).\n"
	"A flag given twice: the last one counts.\n"
	"\n"
	"run `fairway help` for the other commands\n";

static const struct {
	const char *cmd, *text, *numbers; /* numbers: its number and duration flags' rules */
} client_help[] = {
	{ "queues", queues_help, queues_numbers_help }, { "jobs", jobs_help, jobs_numbers_help },
	{ "nodes", nodes_help, "" }, { "reservations", reservations_help, "" },
	{ "fairshare", fairshare_help, "" }, { "plan", plan_help, "" },
	{ "decisions", decisions_help, "" },
	{ "stats", stats_help, "" },
};

/* Subcommands with a help of their own (`fairway jobs submit --help`). */
static const struct {
	const char *cmd, *sub, *text, *numbers;
} sub_help[] = {
	{ "jobs", "submit", jobs_submit_help, jobs_numbers_help }, { "jobs", "list", jobs_list_help, "" },
	{ "jobs", "show", jobs_show_help, "" },			   { "jobs", "why", jobs_show_help, "" },
	{ "jobs", "cancel", jobs_cancel_help, "" },
};

/* Whether subcommand sub of cmd has a help of its own (sub NULL: no). */
static bool has_own_help(const char *cmd, const char *sub)
{
	for (size_t k = 0; sub && k < sizeof sub_help / sizeof *sub_help; k++)
		if (!strcmp(sub_help[k].cmd, cmd) && !strcmp(sub_help[k].sub, sub))
			return true;
	return false;
}

/* cmd's help, or its subcommand sub's when it has one of its own (sub
 * NULL: none given). */
static void print_help(const char *cmd, const char *sub)
{
	for (size_t k = 0; sub && k < sizeof sub_help / sizeof *sub_help; k++)
		if (!strcmp(sub_help[k].cmd, cmd) && !strcmp(sub_help[k].sub, sub)) {
			fputs(sub_help[k].text, stdout);
			fputs(sub_help[k].numbers, stdout);
			fputs(common_help, stdout);
			return;
		}
	for (size_t k = 0; k < sizeof client_help / sizeof *client_help; k++)
		if (!strcmp(client_help[k].cmd, cmd)) {
			fputs(client_help[k].text, stdout);
			fputs(client_help[k].numbers, stdout);
		}
	fputs(common_help, stdout);
}

/* --- argument check ---------------------------------------------------------------------------- */
/* What each command and subcommand accepts: how many NAME words follow the
 * subcommand, the flags that take a value, and the bare ones.  Every word
 * on the line must fit its row before anything is sent, so a typo is an
 * error rather than a flag silently ignored. */
#define QUEUE_FLAGS                                                                                   \
	" --parent --deserved-gpus --limit-gpus --weight --priority --min-runtime --default-runtime " \
	"--max-runtime --default-checkpoint-interval --preemptible --gpu-model-limits --gpu-model-deserved " \
	"--gpu-hour-budget --file "
#define JOB_FLAGS                                                                                               \
	" --queue --name --user --required-level --runtime --priority --exit-code --count --gpus --cpu --memory " \
	"--gpu-model --checkpoint-interval --max-runtime --gpu-fraction --node-selector --slice --array --file " \
	"--min-member --preferred-level "
#define JOB_SWITCHES " --test-only --preemptible --no-preemptible --spread "
static const struct spec {
	const char *cmd, *sub; /* sub NULL: the command has no subcommands */
	int names;             /* NAME words after the subcommand */
	const char *valued, *bare;
} specs[] = {
	{ "queues", "list", 0, "", "" },
	{ "queues", "show", 1, "", "" },
	{ "queues", "delete", 1, "", "" },
	{ "queues", "set", 1, QUEUE_FLAGS, "" },
	{ "queues", "create", 1, QUEUE_FLAGS, "" },
	{ "jobs", "list", 0, " --state --queue --user --reason --array --limit --offset ", " --me " },
	{ "jobs", "submit", 0, JOB_FLAGS, JOB_SWITCHES },
	{ "jobs", "show", 1, "", "" },
	{ "jobs", "why", 1, "", "" },
	{ "jobs", "cancel", 64, "", "" },
	{ "nodes", "list", 0, " --health ", "" },
	{ "nodes", "show", 1, "", "" },
	{ "nodes", "health", 1, " --reason --bad-gpus ", " --healthy --unhealthy " },
	{ "reservations", "list", 0, "", " --all " },
	{ "reservations", "create", 0, " --kind --nodes --queue --job --reason --id --start --end ", "" },
	{ "reservations", "show", 1, "", "" },
	{ "reservations", "delete", 1, "", "" },
	{ "fairshare", "list", 0, "", "" },
	{ "fairshare", "explain", 1, "", "" },
	{ "plan", NULL, 0, " --kind --queue --job --node --limit ", "" },
	{ "decisions", NULL, 0, " --since --job --kind --limit ", "" },
	{ "stats", NULL, 0, "", "" },
};

/* Why `fairway plan --server` refuses w, one of plan's options for a cycle
 * of its own (cmd_plan.c); NULL for any other word or command. */
static const char *plan_local_only(const char *cmd, const char *w)
{
	static const char *const why[][2] = {
		{ "--now", "the daemon's plan is at its own clock" },
		{ "--config", "the daemon plans the fleet it was started with (fairway serve --config)" },
		{ "--policy", "the daemon plans with its own policy (fairway serve --policy)" },
	};

	for (size_t k = 0; !strcmp(cmd, "plan") && k < sizeof why / sizeof why[0]; k++)
		if (!strcmp(w, why[k][0]))
			return why[k][1];
	return NULL;
}

static bool listed(const char *set, const char *word)
{
	char key[64];
	if (strlen(word) + 3 > sizeof key)
		return false;
	snprintf(key, sizeof key, " %s ", word);
	return strstr(set, key) != NULL;
}

/* " (did you mean '--state'?)" for a mistyped flag w of row sp: its
 * flags and the common ones are the candidates. */
static const char *flag_hint(const struct spec *sp, const char *w, char *buf, size_t n)
{
	char words[1024];
	const char *cand[96] = { "--server", "--token-file", "--json", "--help" };
	size_t k = 4;

	snprintf(words, sizeof words, "%s %s", sp->valued, sp->bare);
	for (char *t = strtok(words, " "); t && k + 1 < sizeof cand / sizeof *cand; t = strtok(NULL, " "))
		cand[k++] = t;
	cand[k] = NULL;
	return fw_cli_hint(w, cand, buf, n);
}

/* cmd's subcommands into cand (ending with NULL); how many. */
static size_t subs_of(const char *cmd, const char **cand)
{
	size_t k = 0;

	for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
		if (!strcmp(specs[i].cmd, cmd) && specs[i].sub)
			cand[k++] = specs[i].sub;
	cand[k] = NULL;
	return k;
}

/* " (did you mean 'list'?)" for a mistyped subcommand w of cmd. */
static const char *sub_hint(const char *cmd, const char *w, char *buf, size_t n)
{
	const char *cand[sizeof specs / sizeof specs[0] + 1];

	subs_of(cmd, cand);
	return fw_cli_hint(w, cand, buf, n);
}

/* "list, show, why, submit, cancel": cmd's subcommands, for an error. */
static const char *sub_list(const char *cmd, char *buf, size_t n)
{
	const char *cand[sizeof specs / sizeof specs[0] + 1];
	size_t used = 0;

	buf[0] = '\0';
	subs_of(cmd, cand);
	for (const char *const *c = cand; *c && used < n; c++)
		used += (size_t)snprintf(buf + used, n - used, "%s%s", c == cand ? "" : ", ", *c);
	return buf;
}

/* The subcommands Slurm's and kubectl's users reach for that fairway has
 * under another name, or not at all: X(command, word, what does it here).
 * `fairway jobs hold` is answered with what to run instead, not only
 * with the command's list (nor as a job named "hold"). */
#define FW_FOREIGN_SUBS(X)                                                                                          \
	X("jobs", "hold",                                                                                            \
	  "fairway holds no job (scontrol hold): a job waits until it starts or is cancelled; to keep one from "     \
	  "starting, `fairway jobs cancel NAME` and submit it again later (under --backend slurm, scontrol hold "    \
	  "and release work as ever, and the job is listed with reason held)")                                     \
	X("jobs", "release",                                                                                         \
	  "fairway holds no job, so there is none to release (scontrol release); under --backend slurm, scontrol "   \
	  "release works as ever")                                                                                   \
	X("jobs", "requeue",                                                                                         \
	  "fairway requeues a job itself when it evicts it or drains its node (scontrol requeue); to run one "       \
	  "again, `fairway jobs cancel NAME` and submit it again")                                                   \
	X("jobs", "update",                                                                                          \
	  "a submitted job does not change (scontrol update): `fairway jobs cancel NAME` and submit it again with "  \
	  "the new flags")                                                                                           \
	X("jobs", "delete", "`fairway jobs cancel NAME...` ends jobs, as scancel")                                   \
	X("jobs", "kill", "`fairway jobs cancel NAME...` ends jobs, as scancel")                                     \
	X("nodes", "drain",                                                                                          \
	  "a node leaves service by its health or a maintenance window (scontrol update state=drain): `fairway "     \
	  "nodes health NAME --unhealthy --reason R` (its running jobs are requeued), or `fairway reservations "     \
	  "create --kind maintenance --nodes NAME --start +0s --end +4h` (they may finish)")                        \
	X("nodes", "resume",                                                                                         \
	  "a node comes back by its health or its window's end (scontrol update state=resume): `fairway nodes "      \
	  "health NAME --healthy`, or `fairway reservations delete ID` for a maintenance window")                   \
	X("queues", "update", "`fairway queues set NAME --FLAG V` changes only the flags given (as sacctmgr modify)") \
	X("queues", "modify", "`fairway queues set NAME --FLAG V` changes only the flags given (as sacctmgr modify)") \
	X("reservations", "update",                                                                                  \
	  "a reservation does not change (scontrol update reservation): `fairway reservations delete ID` and "       \
	  "create it again")

static const char *const foreign_subs[][3] = {
#define FW__FOREIGN(c, w, instead) { c, w, instead },
	FW_FOREIGN_SUBS(FW__FOREIGN)
#undef FW__FOREIGN
};

/* What runs instead of cmd w (FW_FOREIGN_SUBS); NULL when w is none of them. */
static const char *foreign_sub(const char *cmd, const char *w)
{
	for (size_t i = 0; i < sizeof foreign_subs / sizeof foreign_subs[0]; i++)
		if (!strcmp(foreign_subs[i][0], cmd) && !strcmp(foreign_subs[i][1], w))
			return foreign_subs[i][2];
	return NULL;
}

/* 2: w is no subcommand of cmd; says so with a hint (or, for a word of
 * Slurm's, what runs instead) and cmd's list. */
static int unknown_sub(const char *cmd, const char *w)
{
	char hint[96], list[160];
	const char *instead = foreign_sub(cmd, w);

	if (instead)
		return fw_cli_usage_error(cmd, "unknown subcommand '%s': %s; `fairway %s` has: %s", w, instead, cmd,
					  sub_list(cmd, list, sizeof list));
	return fw_cli_usage_error(cmd, "unknown subcommand '%s'%s; `fairway %s` has: %s", w,
				  sub_hint(cmd, w, hint, sizeof hint), cmd, sub_list(cmd, list, sizeof list));
}

/* The row for CMD SUB; for a command without subcommands, its only row. */
static const struct spec *find_spec(const char *cmd, const char *sub)
{
	for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
		if (!strcmp(specs[i].cmd, cmd) && (!specs[i].sub || (sub && !strcmp(specs[i].sub, sub))))
			return &specs[i];
	return NULL;
}

/* The subcommand among a command line's words (the common flags taken
 * out): the first that is neither a flag nor the value of one of the
 * flags that may come before it, the command's own or its list's
 * (`fairway jobs --state all --help`); NULL when none. */
static const char *subcommand_of(const char *cmd, char **words, int n)
{
	const struct spec *sp = find_spec(cmd, NULL) ? find_spec(cmd, NULL) : find_spec(cmd, "list");

	for (int i = 0; i < n; i++) {
		if (!(words[i][0] == '-' && words[i][1]))
			return words[i];
		if (sp && !strchr(words[i], '=') && listed(sp->valued, words[i]))
			i++;
	}
	return NULL;
}

/* `fairway help CMD SUB` (`fairway CMD SUB --help`): 0 when SUB is one
 * of CMD's subcommands, or none is given, or CMD has none (`fairway stats
 * --help x` is stats' help, as `fairway plan --help x` is plan's: --help
 * wins over the words it would refuse); else 2, naming the word and CMD's
 * subcommands. */
static int help_sub_ok(const char *cmd, const char *sub)
{
	if (!sub || find_spec(cmd, NULL)) /* its only row, whatever sub is */
		return 0;
	return find_spec(cmd, sub) ? 0 : unknown_sub(cmd, sub);
}

/* One positional word: the subcommand, then its NAMEs. */
static int take_word(struct opts *o, const struct spec **sp, bool implicit, char *w)
{
	if (*sp && !(*sp)->sub)
		return usage_error(o, "unexpected argument '%s' (`fairway %s` takes only flags)", w, o->cmd);
	if (o->npos == 0 && (!*sp || implicit)) {
		const struct spec *s = find_spec(o->cmd, w);
		const char *by_name = find_spec(o->cmd, "show") ? "show" : find_spec(o->cmd, "explain") ? "explain" : NULL;
		char hint[96];
		if (!s && (*sub_hint(o->cmd, w, hint, sizeof hint) || foreign_sub(o->cmd, w))) /* `jobs lsit`, `jobs hold` */
			return unknown_sub(o->cmd, w);
		if (!s && by_name) /* `fairway nodes h100-000`: a name where the subcommand goes */
			return usage_error(o, "unknown subcommand '%s' (for the one named so: `fairway %s %s %s`)",
						  w, o->cmd, by_name, w);
		if (!s)
			return unknown_sub(o->cmd, w);
		if (implicit && strcmp(w, "list"))
			return usage_error(o, "'%s' goes before its flags: fairway %s %s [flags]", w, o->cmd, w);
		*sp = s;
		o->sub = s->sub;
	} else if (o->npos > (*sp)->names)
		return usage_error(o, "unexpected argument '%s' after %s %s", w, o->cmd, (*sp)->sub);
	o->pos[o->npos++] = w;
	return 0;
}

/* 2, saying that bare flag fl of row sp takes no value (val: the word
 * given as its value) and, for a switch with a --no- form, how to say
 * false: `--preemptible false` is `--no-preemptible`. */
static int no_value(struct opts *o, const struct spec *sp, const char *fl, const char *val)
{
	char no[64] = "";

	if (!strncmp(fl, "--", 2) && strncmp(fl, "--no-", 5) && strlen(fl) + 4 <= sizeof no)
		snprintf(no, sizeof no, "--no-%s", fl + 2);
	return usage_error(o, "%s takes no value (got '%.40s')%s%s", fl, val,
				  no[0] && listed(sp->bare, no) ? "; for false give " : "",
				  no[0] && listed(sp->bare, no) ? no : "");
}

/* Split the words left after the common flags into positionals and the
 * command's own flags, stored as (name, value) pairs, value NULL for a bare
 * flag; 2 with a message when a word does not belong. */
static int check_args(struct opts *o, char **words, int n)
{
	const struct spec *sp = find_spec(o->cmd, NULL);
	bool implicit = false;
	int rc;

	for (int i = 0; i < n; i++) {
		char *w = words[i];
		if (!(w[0] == '-' && w[1])) {
			bool after_bare = o->argc && !o->argv[o->argc - 1] && i && words[i - 1] == o->argv[o->argc - 2];
			if (after_bare && sp && sp->sub && !implicit && o->npos > sp->names) /* `--preemptible false` */
				return no_value(o, sp, words[i - 1], w);
			if ((rc = take_word(o, &sp, implicit, w)))
				return rc;
			implicit = false;
			continue;
		}
		if (!sp) /* flags before the subcommand: the default "list" */
			sp = find_spec(o->cmd, "list"), implicit = true, o->sub = sp ? sp->sub : NULL;
		char *eq = fw_cli_split_eq(w);
		bool valued = listed(sp->valued, w);
		if (plan_local_only(o->cmd, w))
			return usage_error(o, "%s cannot be combined with --server (%s)", w,
						  plan_local_only(o->cmd, w));
		if (!valued && !listed(sp->bare, w)) {
			char hint[96];
			return usage_error(o, "unknown option '%s' for `fairway %s%s%s`%s", w, o->cmd,
						  sp->sub ? " " : "", sp->sub ? sp->sub : "",
						  flag_hint(sp, w, hint, sizeof hint));
		}
		if (!valued && eq)
			return no_value(o, sp, w, eq);
		if (valued && (eq ? !*eq : i + 1 >= n))
			return usage_error(o, "%s needs a value", w);
		o->argv[o->argc++] = w;
		o->argv[o->argc++] = !valued ? NULL : eq ? eq : words[++i];
	}
	return 0;
}

/* o->server as the base the API paths ("/v1/...") follow: trailing
 * slashes and a trailing "/v1" dropped (fw_cli_server_base, as
 * fairway-agent reads its --server), so "http://h:8642/" and
 * "http://h:8642/v1" reach the same endpoints as "http://h:8642"; 2 when
 * it does not fit buf. */
static int server_base(struct opts *o, char *buf, size_t n)
{
	size_t len = strlen(o->server);

	if (len >= n)
		return usage_error(o, "the server URL '%.40s...' is too long (at most %zu bytes); give the "
					  "daemon's base URL (--server URL or $FAIRWAY_SERVER), e.g. http://127.0.0.1:8642",
					  o->server, n - 1);
	len = fw_cli_server_base(o->server);
	memcpy(buf, o->server, len);
	buf[len] = '\0';
	o->server = buf;
	return 0;
}

int fw_cmd_client(const char *what, int argc, char **argv)
{
	return fw__cmd_client_via(what, argc, argv, NULL, NULL);
}

int fw__cmd_client_via(const char *what, int argc, char **argv, fw__client_send_fn send, void *ud)
{
	static char *words[256], *flags[512], *pos[256], base[1024];
	const char *env = getenv("FAIRWAY_SERVER");
	struct opts o = { env && *env ? env : "http://127.0.0.1:8642", /* empty: unset */
			  getenv("FAIRWAY_TOKEN_FILE") ? getenv("FAIRWAY_TOKEN_FILE") : "fairway-state/token", what, false,
			  NULL, NULL, 0, flags, 0, pos, NULL, send ? send : curl_send, ud };
	int rc, n = 0;
	bool help = false;

	if (argc > 255)
		return fw_cli_usage_error(what, "too many arguments (%d)", argc - 1);
	for (int i = 1; i < argc; i++) /* --help anywhere: `jobs --help submit` is submit's */
		help = help || !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h");
	for (int i = 1; i < argc; i++) {
		char *eq = fw_cli_split_eq(argv[i]);
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			continue;
		} else if (!strcmp(argv[i], "--json")) {
			if (eq && !help)
				return fw_cli_usage_error(what, "--json takes no value");
			o.json = true;
		} else if (!strcmp(argv[i], "--server") || !strcmp(argv[i], "--token-file")) {
			const char **dst = !strcmp(argv[i], "--server") ? &o.server : &o.token_file;
			const char *flag = argv[i], *v = eq ? eq : i + 1 < argc ? argv[++i] : NULL;
			if ((!v || !*v) && !help)
				return fw_cli_usage_error(what, "%s needs a value", flag);
			*dst = v;
		} else {
			if (eq)
				eq[-1] = '='; /* check_args splits the command's own flags */
			words[n++] = argv[i];
		}
	}
	if (help) {
		const char *sub = subcommand_of(what, words, n);
		if (!(rc = help_sub_ok(what, sub)))
			print_help(what, sub);
		return rc;
	}
	if ((rc = check_args(&o, words, n)) || (rc = server_base(&o, base, sizeof base)))
		return rc;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (!strcmp(what, "queues"))
		rc = cmd_queues(&o);
	else if (!strcmp(what, "jobs"))
		rc = cmd_jobs(&o);
	else if (!strcmp(what, "nodes"))
		rc = cmd_nodes(&o);
	else if (!strcmp(what, "reservations"))
		rc = cmd_reservations(&o);
	else if (!strcmp(what, "fairshare"))
		rc = cmd_fairshare(&o);
	else if (!strcmp(what, "decisions"))
		rc = cmd_decisions(&o);
	else if (!strcmp(what, "stats"))
		rc = cmd_stats(&o);
	else
		rc = cmd_plan(&o);
	curl_global_cleanup();
	return rc;
}
