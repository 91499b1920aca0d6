/*
 * http.c — libmicrohttpd glue: the only file that includes <microhttpd.h>.
 *
 * MHD runs its own thread pool (internal polling, epoll where available).
 * A request's body is gathered into a per-connection buffer capped at
 * FW_API_MAX_BODY (larger bodies get 413 before any of it is parsed);
 * then fw_api_handle() answers it.  A HEAD request is answered as its GET
 * (api.c); MHD sends the headers of that answer and leaves out its body.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

#include "serve_int.h"

struct fw_http {
	struct MHD_Daemon *mhd;
	struct fw_serve *d;
	/* log_mu guards started and start_msg: MHD may log from its own
	 * threads while MHD_start_daemon still runs on the caller's. */
	pthread_mutex_t log_mu;
	bool started;        /* MHD_start_daemon returned: on_log writes to the log */
	char start_msg[256]; /* before: MHD's first message, for the start error */
};

struct conn {
	char *buf;
	size_t len, cap;
	bool too_big;
};

/* rs (NULL for an answer of http.c's own) adds the headers the API asks
 * for: the 401 challenge (RFC 6750) and the 405 Allow list (RFC 9110). */
static enum MHD_Result send_resp(struct MHD_Connection *con, unsigned status, const char *type, char *body,
				 const struct fw_api_resp *rs)
{
	struct MHD_Response *r = body ? MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE)
				      : MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r) {
		free(body); /* MUST_FREE hands it over only when the response exists */
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", type ? type : "application/json");
	if (rs && rs->challenge)
		MHD_add_response_header(r, "WWW-Authenticate", "Bearer realm=\"fairway\"");
	if (rs && rs->allow[0])
		MHD_add_response_header(r, "Allow", rs->allow);
	ret = MHD_queue_response(con, status, r);
	MHD_destroy_response(r);
	return ret;
}

static bool gather(struct conn *c, const char *data, size_t n)
{
	if (c->too_big || c->len + n > FW_API_MAX_BODY) {
		c->too_big = true;
		return true;
	}
	if (c->len + n + 1 > c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 4096;
		while (cap < c->len + n + 1)
			cap *= 2;
		char *nb = realloc(c->buf, cap);
		if (!nb)
			return false;
		c->buf = nb;
		c->cap = cap;
	}
	memcpy(c->buf + c->len, data, n);
	c->len += n;
	c->buf[c->len] = '\0';
	return true;
}

/* A request's query arguments, for the API (struct fw_api_req args, which
 * holds those other than state and limit: the API reads those two apart):
 * at most FW_HTTP_ARGS of them, state and limit counted (no route takes
 * more than six); over says there were more, and twice names one given
 * a second time.  Both are answered 400 here: a parameter past the limit
 * would not reach the API (which refuses one its route does not take),
 * and MHD hands the API only a repeated parameter's first value, so
 * `?limit=1&limit=3` would be read as 1 with no word of the 3, where a
 * body's duplicate key is refused.  No parameter takes several values by
 * repeating it (health=a,b is one, comma-separated). */
#define FW_HTTP_ARGS 16
struct args {
	const char *kv[2 * FW_HTTP_ARGS + 1];
	const char *seen[FW_HTTP_ARGS]; /* every key so far, state and limit too */
	int n, nseen;
	bool over;
	const char *twice;
};

static enum MHD_Result add_arg(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	struct args *a = cls;

	(void)kind;
	for (int i = 0; i < a->nseen; i++)
		if (!strcmp(a->seen[i], key)) {
			a->twice = key;
			return MHD_NO;
		}
	if (a->nseen >= FW_HTTP_ARGS) {
		a->over = true;
		return MHD_NO;
	}
	a->seen[a->nseen++] = key;
	if (!strcmp(key, "state") || !strcmp(key, "limit"))
		return MHD_YES;
	a->kv[2 * a->n] = key;
	a->kv[2 * a->n + 1] = value ? value : "";
	a->n++;
	return MHD_YES;
}

/* The 400 for a query add_arg refused (a malloc'd body), or NULL.  The
 * repeated name is quoted in printable ASCII, cut to 64 bytes: any other
 * byte becomes '?' (a JSON answer must be UTF-8). */
static char *query_refusal(const struct args *a)
{
	char msg[160], key[65];
	size_t i = 0;
	json_t *e;
	char *s;

	if (a->over)
		snprintf(msg, sizeof msg, "the query has more than %d parameters; no endpoint takes more than 6",
			 FW_HTTP_ARGS);
	else if (a->twice) {
		for (; a->twice[i] && i + 1 < sizeof key; i++)
			key[i] = a->twice[i] >= 0x20 && a->twice[i] < 0x7f ? a->twice[i] : '?';
		key[i] = '\0';
		snprintf(msg, sizeof msg, "parameter '%s' given twice; give each once", key);
	} else
		return NULL;
	e = json_pack("{s:{s:i,s:s,s:s,s:s}}", "error", "status", 400, "code", "EINVAL", "field", "query", "message",
		      msg);
	s = e ? json_dumps(e, JSON_COMPACT) : NULL;
	json_decref(e);
	return s;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *con, const char *url, const char *method,
				  const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
	struct fw_http *h = cls;
	struct conn *c = *con_cls;
	struct fw_api_req rq;
	struct fw_api_resp rs;
	struct args args = { { NULL }, { NULL }, 0, 0, false, NULL };

	(void)version;
	if (!c) {
		if (!(c = calloc(1, sizeof *c)))
			return MHD_NO;
		*con_cls = c;
		return MHD_YES;
	}
	if (*upload_size) {
		if (!gather(c, upload, *upload_size))
			return MHD_NO;
		*upload_size = 0;
		return MHD_YES;
	}
	if (c->too_big)
		return send_resp(con, 413, NULL,
				 strdup("{\"error\":{\"status\":413,\"code\":\"ERANGE\",\"field\":\"body\","
					"\"message\":\"the request body is larger than 1 MiB\"}}"),
				 NULL);
	MHD_get_connection_values(con, MHD_GET_ARGUMENT_KIND, add_arg, &args);
	if (args.over || args.twice)
		return send_resp(con, 400, NULL, query_refusal(&args), NULL);
	memset(&rq, 0, sizeof rq);
	rq.method = method;
	rq.path = url;
	rq.query_state = MHD_lookup_connection_value(con, MHD_GET_ARGUMENT_KIND, "state");
	rq.query_limit = MHD_lookup_connection_value(con, MHD_GET_ARGUMENT_KIND, "limit");
	rq.args = args.kv;
	rq.auth = MHD_lookup_connection_value(con, MHD_HEADER_KIND, "Authorization");
	rq.content_type = MHD_lookup_connection_value(con, MHD_HEADER_KIND, "Content-Type");
	rq.body = c->buf;
	rq.body_len = c->len;
	fw_api_handle(h->d, &rq, &rs);
	return send_resp(con, rs.status, rs.content_type, rs.body, &rs);
}

/* A hex digit's value, or -1. */
static int hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* MHD's unescaping of the path and the query's values, but "%2F" ('/')
 * and "%00" stay as they are: an encoded '/' inside a path segment (a
 * client's "a%2Fb") is then still one segment, which the API refuses as a
 * name (400) instead of routing it as two, and no value is cut at a NUL. */
static size_t unescape(void *cls, struct MHD_Connection *con, char *s)
{
	char *out = s;

	(void)cls;
	(void)con;
	for (const char *in = s; *in; out++) {
		int hi = in[0] == '%' ? hex(in[1]) : -1, lo = hi >= 0 ? hex(in[2]) : -1;
		int ch = lo >= 0 ? hi * 16 + lo : -1;
		if (ch <= 0 || ch == '/') {
			*out = *in++;
			continue;
		}
		*out = (char)ch;
		in += 3;
	}
	*out = '\0';
	return (size_t)(out - s);
}

static void on_done(void *cls, struct MHD_Connection *con, void **con_cls, enum MHD_RequestTerminationCode why)
{
	struct conn *c = *con_cls;
	(void)cls;
	(void)con;
	(void)why;
	if (c) {
		free(c->buf);
		free(c);
		*con_cls = NULL;
	}
}

/* An MHD message as one line of text: an HTML error page it quotes
 * ("<html><head><title>Request malformed</title>...") cut to its words,
 * "Request malformed: Your HTTP request was ...", control bytes as '?'
 * and no line break at the end. */
static void plain_text(char *s)
{
	char *out = s;
	size_t n = strlen(s);
	bool html = strstr(s, "<html>") != NULL; /* MHD's own pages begin so */

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
		s[--n] = '\0'; /* the message's own line break */
	for (const char *in = s; *in; in++) {
		if (*in != '<' || !html) {
			*out++ = (unsigned char)*in < 0x20 || *in == 0x7f ? '?' : *in;
			continue;
		}
		while (in[1] && *in != '>')
			in++;
		if (out > s && (isalnum((unsigned char)out[-1]) || out[-1] == '.') && isalnum((unsigned char)in[1])) {
			*out++ = ':'; /* "malformed</title></head><body>Your": words apart */
			*out++ = ' ';
		}
	}
	*out = '\0';
}

/* libmicrohttpd's own messages (MHD_USE_ERROR_LOG), in the daemon's log
 * format: "fairway serve: http: ..." on stderr, one line each.  While
 * MHD_start_daemon runs, the first is kept for the start error instead
 * (fw_http_start says why in its own words). */
static void on_log(void *cls, const char *fm, va_list ap)
{
	struct fw_http *h = cls;
	char line[512];

	vsnprintf(line, sizeof line, fm, ap);
	plain_text(line);
	pthread_mutex_lock(&h->log_mu);
	bool started = h->started;
	if (!started && !h->start_msg[0])
		snprintf(h->start_msg, sizeof h->start_msg, "%.255s", line); /* start_msg's size, less one */
	pthread_mutex_unlock(&h->log_mu);
	if (started)
		fprintf(stderr, "fairway serve: http: %s\n", line);
}

/* Why MHD could not listen on sa, found by binding it here as MHD does
 * (SO_REUSEADDR): the port in use, a privileged port, an address not this
 * machine's; else MHD's own message. */
static void listen_error(const struct sockaddr_in *sa, const char *host, int port, const char *mhd_said, char *err,
			 size_t n)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1, e = fd < 0 ? errno : 0;

	if (fd >= 0) {
		(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		if (bind(fd, (const struct sockaddr *)sa, sizeof *sa) != 0)
			e = errno;
		close(fd);
	}
	if (e == EADDRINUSE)
		snprintf(err, n, "port %s:%d is in use: stop the other process or pick another --listen", host, port);
	else if (e == EACCES)
		snprintf(err, n, "port %s:%d needs privileges (ports below 1024 do): pick a port of 1024 or more with "
			 "--listen", host, port);
	else if (e == EADDRNOTAVAIL)
		snprintf(err, n, "cannot listen on %s:%d: %s is not an address of this machine; pick one of its own "
			 "(127.0.0.1, or an interface's) with --listen", host, port, host);
	else
		snprintf(err, n, "cannot listen on %s:%d: %s; pick another --listen", host, port,
			 e ? strerror(e) : mhd_said[0] ? mhd_said : "libmicrohttpd could not start");
}

/* MHD_start_daemon returned: on_log writes to the log from now on, and
 * start_msg, which it no longer touches, is the caller's to read. */
static void mark_started(struct fw_http *h)
{
	pthread_mutex_lock(&h->log_mu);
	h->started = true;
	pthread_mutex_unlock(&h->log_mu);
}

static void http_free(struct fw_http *h)
{
	pthread_mutex_destroy(&h->log_mu);
	free(h);
}

int fw_http_start(struct fw_serve *d, const char *host, int port, struct fw_http **out, int *bound_port, char *err,
		  size_t errn)
{
	struct sockaddr_in sa;
	struct fw_http *h = calloc(1, sizeof *h);
	const union MHD_DaemonInfo *info;

	if (!h)
		return FW_ENOMEM;
	pthread_mutex_init(&h->log_mu, NULL);
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1) {
		snprintf(err, errn, "--listen: '%s' is not an IPv4 address (e.g. 127.0.0.1)", host);
		http_free(h);
		return FW_EINVAL;
	}
	h->d = d;
	h->mhd = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG, (uint16_t)port, NULL, NULL,
				  on_request, h, MHD_OPTION_EXTERNAL_LOGGER, on_log, h, /* first, as MHD asks */
				  MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
				  MHD_OPTION_THREAD_POOL_SIZE, (unsigned)4, MHD_OPTION_NOTIFY_COMPLETED, on_done, h,
				  MHD_OPTION_CONNECTION_LIMIT, (unsigned)512, MHD_OPTION_CONNECTION_TIMEOUT,
				  (unsigned)60, MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL, MHD_OPTION_END);
	mark_started(h);
	if (!h->mhd) {
		listen_error(&sa, host, port, h->start_msg, err, errn);
		http_free(h);
		return FW_EIO;
	}
	if (h->start_msg[0]) /* a warning of a start that worked */
		fprintf(stderr, "fairway serve: http: %s\n", h->start_msg);
	info = MHD_get_daemon_info(h->mhd, MHD_DAEMON_INFO_BIND_PORT);
	*bound_port = info ? info->port : port;
	*out = h;
	return FW_OK;
}

void fw_http_stop(struct fw_http *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->mhd);
	http_free(h);
}
