/*
 * post.c — a folded report as the daemon's health body, sent with
 * libcurl (post.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <curl/curl.h>

#include "cliword.h"
#include "codec.h"
#include "fairway/err.h"
#include "post.h"

/* ---- the body ---------------------------------------------------------- */

/* Append to a bounded string; a piece that does not fit ends it in "...". */
static void add(char *buf, size_t n, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;
	int w = -1;

	if (len >= 3 && !strcmp(buf + len - 3, "..."))
		return; /* already cut */
	if (len + 1 < n) {
		va_start(ap, fmt);
		w = vsnprintf(buf + len, n - len, fmt, ap);
		va_end(ap);
	}
	if (w < 0 || (size_t)w >= n - len)
		snprintf(buf + n - 4, 4, "...");
}

static void add_mask(char *buf, size_t n, const char *what, uint32_t m, int *parts)
{
	if (!m)
		return;
	add(buf, n, "%s%s", (*parts)++ ? "; " : "", what);
	for (int g = 0, k = 0; g < 32; g++)
		if (m & (1u << g))
			add(buf, n, "%s%d", k++ ? "," : " ", g);
}

static void add_events(char *buf, size_t n, const struct fw_agent_gpu *g, int *parts)
{
	if (g->lost)
		add(buf, n, "%sGPU %u lost (%s)", (*parts)++ ? "; " : "", g->index,
		    g->unread[0] ? g->unread : "GPU is lost");
	for (int k = 0; k < g->nxid; k++)
		add(buf, n, "%sGPU %u XID %lld", (*parts)++ ? "; " : "", g->index, (long long)g->xid[k]);
	if (g->ecc_volatile > 0)
		add(buf, n, "%sGPU %u ECC uncorrectable %lld", (*parts)++ ? "; " : "", g->index,
		    (long long)g->ecc_volatile);
	if (g->remap_failed)
		add(buf, n, "%sGPU %u row remap failed", (*parts)++ ? "; " : "", g->index);
	if (g->remap_pending)
		add(buf, n, "%sGPU %u row remap pending", (*parts)++ ? "; " : "", g->index);
	for (int k = 0; k < g->ndown; k++)
		add(buf, n, "%sGPU %u NVLink %d down", (*parts)++ ? "; " : "", g->index, g->nvlink_down[k]);
}

/* "suspect: suspect GPUs 1; GPU 1 XID 62", or "healthy: 8 GPUs ok" ("1 GPU ok"). */
static void reason(const struct fw_agent_report *r, char *buf, size_t n)
{
	int parts = 0;

	buf[0] = 0;
	add(buf, n, "%s: ", fw_health_name(r->node_health));
	add_mask(buf, n, "bad GPUs", r->bad_mask, &parts);
	add_mask(buf, n, "suspect GPUs", r->suspect_mask, &parts);
	for (int i = 0; i < r->ngpus; i++)
		add_events(buf, n, &r->gpu[i], &parts);
	if (!parts)
		add(buf, n, "%d GPU%s ok", r->ngpus, r->ngpus == 1 ? "" : "s");
}

json_t *fw_agent_health_body(const struct fw_agent_report *r)
{
	char why[FW_AGENT_REASON_MAX];
	json_t *bad = json_array();
	bool healthy = r->node_health != FW_HEALTH_UNHEALTHY && r->node_health != FW_HEALTH_DRAINING;

	for (int g = 0; g < FW_AGENT_MAX_GPUS; g++)
		if (r->bad_mask & (1u << g))
			json_array_append_new(bad, json_integer(g));
	reason(r, why, sizeof why);
	return json_pack("{s:s,s:b,s:b,s:o,s:s,s:I}", "node", r->node, "healthy", healthy, "suspect",
			 r->node_health == FW_HEALTH_SUSPECT, "badGpus", bad, "reason", why, "at",
			 (json_int_t)r->time);
}

/* ---- the token --------------------------------------------------------- */

int fw_agent_read_token(const char *file, char tok[FW_TOKEN_MAX], char *why, size_t whylen)
{
	FILE *f = fopen(file, "r");
	struct stat st;
	bool dir = f && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode);
	char buf[FW_TOKEN_MAX + 1]; /* one byte more than a token: a longer one is refused, not cut */
	struct fw_diag d;
	size_t len;
	int rc;

	if (!f || dir) {
		snprintf(why, whylen,
			 "cannot read the token file %s: %s (pass --token-file with the daemon's agent token: "
			 "`fairway serve --agent-token-file`, default STATE_DIR/agent-token)",
			 file, dir ? "it is a directory" : strerror(errno));
		if (f)
			fclose(f);
		return FW_ENOENT;
	}
	len = fread(buf, 1, sizeof buf, f);
	fclose(f);
	if (len == 0) {
		tok[0] = 0;
		snprintf(why, whylen, "the token file %s is empty (it must hold the daemon's bearer token)", file);
		return FW_EINVAL;
	}
	if ((rc = fw_codec_token_parse(buf, len, tok, &d)) != FW_OK)
		snprintf(why, whylen, "the token file %s: %s", file, d.msg);
	return rc;
}

/* ---- the request ------------------------------------------------------- */

int fw_agent_node_check(const char *node, const char *what, char *why, size_t whylen)
{
	struct fw_diag d;
	int rc;

	memset(&d, 0, sizeof d);
	if ((rc = fw_codec_name_check(node, what, &d)) != FW_OK)
		snprintf(why, whylen, "%s \"%.80s%s\": %s", what, node, strlen(node) > 80 ? "..." : "",
			 d.msg);
	return rc;
}

struct reply {
	char *body;
	size_t len;
};

static size_t on_data(char *p, size_t sz, size_t n, void *ud)
{
	struct reply *r = ud;
	char *nb = realloc(r->body, r->len + sz * n + 1);

	if (!nb)
		return 0;
	memcpy(nb + r->len, p, sz * n);
	r->body = nb;
	r->len += sz * n;
	r->body[r->len] = 0;
	return sz * n;
}

/* s's first n bytes (n at most 300) with each control byte, and DEL,
 * as '?': a log line stays one line and a terminal takes no command. */
static const char *masked(const char *s, size_t n, char buf[301])
{
	size_t i;

	for (i = 0; s && i < n && i < 300; i++)
		buf[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	buf[i] = 0;
	return buf;
}

/* The daemon's {"error":{...}} as one line, or its raw body's first
 * line, masked. */
void fw__agent_refusal(const struct fw_agent_server *s, const char *node, long status, const char *body,
		       size_t len, char *why, size_t whylen)
{
	json_t *j = body ? json_loadb(body, len, 0, NULL) : NULL, *e = json_object_get(j, "error");
	const char *code = json_string_value(json_object_get(e, "code"));
	const char *field = json_string_value(json_object_get(e, "field"));
	const char *msg = json_string_value(json_object_get(e, "message"));
	size_t line = body ? strcspn(body, "\r\n") : 0;
	char m1[301], m2[301], m3[301], m4[301];

	code = code ? masked(code, strnlen(code, 40), m1) : NULL; /* the API's are short: EINVAL, ENOENT */
	field = field ? masked(field, strnlen(field, 128), m2) : NULL;
	msg = msg ? masked(msg, strlen(msg), m3) : NULL;
	if (status == 401)
		snprintf(why, whylen,
			 "%s refused the token in %s (401: %s): use that daemon's agent token "
			 "(`fairway serve --agent-token-file`, default STATE_DIR/agent-token)",
			 s->url, s->token_file, msg ? msg : "unauthorized");
	else if (e)
		snprintf(why, whylen, "%s refused the report for node %s: %ld %s%s%s%s%s%s", s->url, node, status,
			 code ? code : "", field && *field ? " field " : "", field ? field : "", msg ? ": " : "",
			 msg ? msg : "",
			 status == 404 ? " (--node NAME must be one of the daemon's nodes: GET /v1/nodes)" : "");
	else
		snprintf(why, whylen, "%s answered %ld to the report for node %s: %s%s (is --server the URL of "
			 "`fairway serve`?)", s->url, status, node, line ? masked(body, line, m4) : "(no body)",
			 line > 300 ? "..." : "");
	json_decref(j);
}

static int deliver(CURL *c, const struct fw_agent_server *s, const char *node, const char *payload,
		   struct curl_slist *h, char *why, size_t whylen)
{
	struct reply r = { NULL, 0 };
	char url[1024];
	char *esc;
	size_t base = fw_cli_server_base(s->url); /* as `fairway --server`: no trailing / or /v1 */
	long status = 0;
	int rc = FW_OK;

	/* A checked name is one path segment: curl_easy_escape encodes all
	 * but [A-Za-z0-9._~-], and "." and ".." (the dot segments a URL
	 * folds) are refused; PATH_AS_IS keeps libcurl from folding anyway. */
	if ((rc = fw_agent_node_check(node, "node", why, whylen)) != FW_OK)
		return FW_EINVAL;
	if (!(esc = curl_easy_escape(c, node, 0))) {
		snprintf(why, whylen, "out of memory preparing the request to %s", s->url);
		return FW_ENOMEM;
	}
	snprintf(url, sizeof url, "%.*s/v1/nodes/%s/health", (int)base, s->url, esc);
	curl_free(esc);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_PATH_AS_IS, 1L);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, payload);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &r);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 5L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 15L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	CURLcode cc = curl_easy_perform(c);
	if (cc != CURLE_OK) {
		snprintf(why, whylen, "cannot reach %s: %s (is `fairway serve` running there? check --server)", s->url,
			 curl_easy_strerror(cc));
		rc = FW_EIO;
	} else if (curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status), status >= 300) {
		fw__agent_refusal(s, node, status, r.body, r.len, why, whylen);
		rc = status >= 500 ? FW_EIO : FW_EINVAL;
	}
	free(r.body);
	return rc;
}

int fw_agent_post(const struct fw_agent_server *s, const char *node, json_t *body, char *why, size_t whylen)
{
	char tok[FW_TOKEN_MAX], auth[FW_TOKEN_MAX + 32];
	struct curl_slist *h = NULL;
	CURL *c;
	char *payload;
	int rc;

	if ((rc = fw_agent_read_token(s->token_file, tok, why, whylen)) != FW_OK)
		return rc;
	if (!(c = curl_easy_init()) || !(payload = json_dumps(body, JSON_COMPACT))) {
		snprintf(why, whylen, "out of memory preparing the request to %s", s->url);
		if (c)
			curl_easy_cleanup(c);
		return FW_ENOMEM;
	}
	snprintf(auth, sizeof auth, "Authorization: Bearer %s", tok);
	h = curl_slist_append(h, auth);
	h = curl_slist_append(h, "Content-Type: application/json");
	rc = deliver(c, s, node, payload, h, why, whylen);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	free(payload);
	return rc;
}
