/*
 * fuzz_client.c — libFuzzer target for the API client reading the
 * daemon's replies (tools/cmd_client.c: `fairway queues|jobs|nodes|
 * reservations|fairshare|plan|decisions|stats` against `fairway serve`).
 *
 * The first byte chooses a command line (COMMANDS: each command and
 * subcommand, tables and --json; for the last few, a byte picks one of
 * the command's flags that take a value, and a byte's length of the input
 * is its value: what the client parses itself, --gpus, --memory,
 * --start, --since, --slice, --node-selector, --bad-gpus, MODEL=GPUS
 * lists, ...); then each request the command sends is
 * answered from the stream through the client's transport seam
 * (tools/client_int.h): one byte picks the status (STATUSES: 2xx, a
 * redirect, 4xx, 5xx, one no server sends), two bytes the body's length,
 * then the body's bytes; a request past the end of the input is not
 * reached (the transport's error).  So a reply may be the API's JSON,
 * another version's, a proxy's HTML page, an empty body, or none.  What
 * the command prints to stdout and stderr is captured, and held to:
 *   - an exit status of 0, 1 or 2, and a failure that says "error:";
 *   - a flag's value refused before any request is sent: exit 2, and
 *     the message names the flag;
 *   - no control byte but the newline in what it prints (no escape
 *     sequence from the reply reaches the terminal), nor DEL or a C1
 *     control in a table;
 *   - a 2xx first reply that is not a JSON object: exit 1, never a table
 *     of nothing (the proxy's page, an empty body, another service);
 *   - a 4xx first reply that is refused: exit 2 (1 for a 5xx);
 *   - a listing printed with --json: the reply's JSON object, as sent;
 *   - a listing printed as a table (queues, jobs, nodes): one row per
 *     element of its list, the header and the summary lines beside them.
 * Built with -fsanitize=fuzzer under clang, and as fuzz_replay_client with
 * replay.c over tests/fuzz/corpus/client in every test run.
 *
 * The capture assigns glibc's stdout and stderr (FILE *variables there)
 * to memory streams for the call; the sanitizers write to fd 2 directly,
 * so their reports are not captured.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "bytes.h"
#include "client_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum shape { OTHER, TABLE, JSON };

static const char *const SUBMIT_FLAGS[] = { "--name", "--user", "--required-level", "--runtime", "--priority",
					    "--exit-code", "--count", "--gpus", "--cpu", "--memory", "--gpu-model",
					    "--checkpoint-interval", "--max-runtime", "--gpu-fraction",
					    "--node-selector", "--slice", "--array", "--min-member",
					    "--preferred-level", NULL };
static const char *const QUEUE_FLAGS[] = { "--parent", "--deserved-gpus", "--limit-gpus", "--weight", "--priority",
					   "--min-runtime", "--default-runtime", "--max-runtime",
					   "--default-checkpoint-interval", "--preemptible", "--gpu-model-limits",
					   "--gpu-model-deserved", "--gpu-hour-budget", NULL };
static const char *const RSV_FLAGS[] = { "--start", "--end", "--id", "--reason", "--kind", "--nodes", NULL };
static const char *const HEALTH_FLAGS[] = { "--bad-gpus", "--reason", NULL };
static const char *const DECISIONS_FLAGS[] = { "--since", "--limit", "--job", "--kind", NULL };
static const char *const PLAN_FLAGS[] = { "--limit", "--kind", "--queue", "--job", "--node", NULL };
static const char *const LIST_FLAGS[] = { "--limit", "--offset", "--state", "--reason", "--queue", "--user",
					  "--array", NULL };
static const char *const NODES_FLAGS[] = { "--health", NULL };

/* Each command line (the words after `fairway`), how its output is
 * checked, and for a table: its list, and the lines printed beside the
 * rows (header, summary). */
static const struct command {
	const char *words;
	enum shape shape;
	const char *list;
	int extra_lines;
	const char *const *flags; /* one of them, with a value from the input, after the words */
} COMMANDS[] = {
	{ "queues list", TABLE, "queues", 1, NULL },
	{ "queues list --json", JSON, NULL, 0, NULL },
	{ "queues show q1", OTHER, NULL, 0, NULL },
	{ "queues show q1 --json", JSON, NULL, 0, NULL },
	{ "queues set q1 --priority 3", OTHER, NULL, 0, NULL },
	{ "queues delete q1", OTHER, NULL, 0, NULL },
	{ "jobs list", TABLE, "jobs", 1, NULL },
	{ "jobs list --json", JSON, NULL, 0, NULL },
	{ "jobs show j1", OTHER, NULL, 0, NULL },
	{ "jobs why j1", OTHER, NULL, 0, NULL },
	{ "jobs show j1 --json", JSON, NULL, 0, NULL },
	{ "jobs submit --queue q1 --gpus 2", OTHER, NULL, 0, NULL },
	{ "jobs submit --queue q1 --gpus 2 --test-only", OTHER, NULL, 0, NULL },
	{ "jobs cancel j1", OTHER, NULL, 0, NULL },
	{ "nodes list", TABLE, "nodes", 3, NULL },
	{ "nodes list --json", JSON, NULL, 0, NULL },
	{ "nodes show n1", OTHER, NULL, 0, NULL },
	{ "nodes health n1 --unhealthy --reason x", OTHER, NULL, 0, NULL },
	{ "reservations list", OTHER, NULL, 0, NULL },
	{ "reservations list --all --json", JSON, NULL, 0, NULL },
	{ "reservations show r1", OTHER, NULL, 0, NULL },
	{ "reservations create --kind queue --queue q1 --nodes n1 --start +1h --end +2h", OTHER, NULL, 0, NULL },
	{ "reservations delete r1", OTHER, NULL, 0, NULL },
	{ "fairshare", OTHER, NULL, 0, NULL },
	{ "fairshare --json", JSON, NULL, 0, NULL },
	{ "fairshare explain q1", OTHER, NULL, 0, NULL },
	{ "plan", OTHER, NULL, 0, NULL },
	{ "plan --json", JSON, NULL, 0, NULL },
	{ "decisions", OTHER, NULL, 0, NULL },
	{ "decisions --json", JSON, NULL, 0, NULL },
	{ "stats", OTHER, NULL, 0, NULL },
	{ "stats --json", JSON, NULL, 0, NULL },
	{ "jobs submit --queue q1 --gpus 1", OTHER, NULL, 0, SUBMIT_FLAGS },
	{ "jobs submit --queue q1 --gpus 1 --test-only", OTHER, NULL, 0, SUBMIT_FLAGS },
	{ "queues set q1", OTHER, NULL, 0, QUEUE_FLAGS },
	{ "queues create q1 --deserved-gpus 2", OTHER, NULL, 0, QUEUE_FLAGS },
	{ "reservations create --kind queue --queue q1 --nodes n1 --end +2h", OTHER, NULL, 0, RSV_FLAGS },
	{ "nodes health n1 --unhealthy", OTHER, NULL, 0, HEALTH_FLAGS },
	{ "decisions", OTHER, NULL, 0, DECISIONS_FLAGS },
	{ "plan", OTHER, NULL, 0, PLAN_FLAGS },
	{ "jobs list", OTHER, NULL, 0, LIST_FLAGS },
	{ "nodes list", OTHER, NULL, 0, NODES_FLAGS },
};
#define NCOMMANDS (sizeof COMMANDS / sizeof COMMANDS[0])

static const long STATUSES[] = { 200, 200, 200, 200, 201, 204, 302, 400, 401, 404, 409, 422, 500, 502, 503, 199 };

#define MAX_WORDS 24

/* The replies as the stream gives them; the first one kept for the
 * checks. */
struct feed {
	struct bytes b;
	int asked;         /* requests sent, reached or not */
	int calls;         /* requests answered */
	long first_status; /* 0: not reached */
	char *first_body;
	size_t first_len;
};

static int fake_send(void *ud, const char *method, const char *url, const char *auth, const char *content_type,
		     const char *payload, struct fw__client_reply *r, char *why, size_t whylen)
{
	struct feed *f = ud;
	size_t len;

	(void)method, (void)url, (void)auth, (void)content_type, (void)payload;
	f->asked++;
	if (f->b.at >= f->b.n) {
		snprintf(why, whylen, "Could not connect to server (the fuzz input ended)");
		return 1;
	}
	r->status = STATUSES[pick(&f->b, sizeof STATUSES / sizeof STATUSES[0])];
	len = u16(&f->b);
	if (len > f->b.n - f->b.at)
		len = f->b.n - f->b.at;
	r->body = malloc(len + 1);
	if (!r->body)
		abort();
	memcpy(r->body, f->b.p + f->b.at, len);
	r->body[len] = '\0';
	r->len = len;
	f->b.at += len;
	if (f->calls++ == 0) {
		f->first_status = r->status;
		f->first_body = malloc(len + 1);
		if (!f->first_body)
			abort();
		memcpy(f->first_body, r->body, len + 1);
		f->first_len = len;
	}
	return 0;
}

static char token_path[64];

static void remove_token_file(void)
{
	unlink(token_path);
}

/* A token file for the writes (read before each POST, PUT, PATCH,
 * DELETE), made once, removed at exit. */
static const char *token_file(void)
{
	char *path = token_path;
	FILE *f;
	int fd;

	if (path[0])
		return path;
	snprintf(path, sizeof token_path, "/tmp/fuzz_client_token.XXXXXX");
	if ((fd = mkstemp(path)) < 0 || !(f = fdopen(fd, "w")))
		abort();
	fputs("fuzz-token\n", f);
	fclose(f);
	atexit(remove_token_file);
	return path;
}

struct captured {
	char *out, *err;
	size_t nout, nerr;
	int rc;
	bool echoed; /* the flag's value has a control byte: the user's own, echoed in a refusal */
	bool flagish; /* the flag's value is a flag word (--help, --server, -h): read as one, not as the value */
};

/* Run the command line with the feed as its transport, its stdout and
 * stderr captured; *fl: the flag given a value from the input, or NULL. */
static void run(const struct command *c, struct feed *f, struct captured *cap, const char **fl)
{
	char buf[512], flag[40], value[256], *argv[MAX_WORDS], *save = NULL;
	FILE *out = stdout, *err = stderr;
	int argc = 0;

	snprintf(buf, sizeof buf, "%s --server http://fuzz.invalid:8642 --token-file %s", c->words, token_file());
	for (char *w = strtok_r(buf, " ", &save); w && argc < MAX_WORDS - 2; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	*fl = NULL;
	if (c->flags) {
		size_t nf = 0, len;
		while (c->flags[nf])
			nf++;
		*fl = c->flags[pick(&f->b, (unsigned)nf)];
		len = u8(&f->b);
		for (size_t i = 0; i < len; i++) /* a word of argv: ends at a NUL */
			value[i] = (char)u8(&f->b);
		value[len] = '\0';
		for (size_t i = 0; value[i]; i++)
			cap->echoed |= (unsigned char)value[i] < 0x20 || value[i] == 0x7f || (unsigned char)value[i] == 0xc2;
		cap->flagish = !strncmp(value, "--", 2) || !strcmp(value, "-h");
		snprintf(flag, sizeof flag, "%s", *fl);
		argv[argc++] = flag;
		argv[argc++] = value;
	}
	fflush(stdout);
	fflush(stderr);
	stdout = open_memstream(&cap->out, &cap->nout);
	stderr = open_memstream(&cap->err, &cap->nerr);
	if (!stdout || !stderr)
		abort();
	cap->rc = fw__cmd_client_via(argv[0], argc, argv, fake_send, f);
	fclose(stdout);
	fclose(stderr);
	stdout = out;
	stderr = err;
}

static void fail(const struct command *c, const struct captured *cap, const char *why)
{
	fprintf(stderr, "fuzz_client: `fairway %s` (exit %d): %s\n--- stdout\n%s--- stderr\n%s---\n", c->words,
		cap->rc, why, cap->out, cap->err);
	abort();
}

/* No control byte but '\n' in what was printed, nor, in a table, DEL or
 * a C1 control in UTF-8 (0xC2 0x80..0x9F). */
static void check_printable(const struct command *c, const struct captured *cap, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		bool c1 = ch == 0xc2 && i + 1 < n && (unsigned char)s[i + 1] >= 0x80 && (unsigned char)s[i + 1] <= 0x9f;
		if ((ch < 0x20 && ch != '\n') || ((ch == 0x7f || c1) && c->shape != JSON))
			fail(c, cap, "a control byte printed");
	}
}

static size_t lines(const char *s, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += s[i] == '\n';
	return k;
}

static void check(const struct command *c, const struct feed *f, const struct captured *cap, const char *fl)
{
	json_t *sent = f->first_body ? json_loadb(f->first_body, f->first_len, 0, NULL) : NULL;
	bool ok2xx = f->first_status >= 200 && f->first_status < 300;

	if (cap->rc < 0 || cap->rc > 2)
		fail(c, cap, "an exit status other than 0, 1 or 2");
	if (cap->rc && !strstr(cap->err, "error: "))
		fail(c, cap, "a failure that does not say error:");
	if (fl && !f->asked && cap->rc != 2 && !cap->flagish)
		fail(c, cap, "a command that sent nothing, not refused with exit 2");
	if (fl && !f->asked && !strstr(cap->err, fl) && !cap->flagish)
		fail(c, cap, "a flag's value refused without naming the flag");
	if (!cap->echoed) {
		check_printable(c, cap, cap->out, cap->nout);
		check_printable(c, cap, cap->err, cap->nerr);
	}
	if (f->calls && ok2xx && !json_is_object(sent) && cap->rc != 1)
		fail(c, cap, "a 2xx reply that is not a JSON object, not refused with exit 1");
	if (f->calls && f->first_status >= 400 && cap->rc != (f->first_status < 500 ? 2 : 1))
		fail(c, cap, "a refusal's exit status is not 2 for a 4xx, 1 for a 5xx");
	if (!cap->rc && c->shape == JSON && f->calls == 1) {
		json_t *printed = json_loadb(cap->out, cap->nout, 0, NULL);
		if (!json_equal(printed, sent))
			fail(c, cap, "--json printed other JSON than the reply");
		json_decref(printed);
	}
	if (!cap->rc && c->shape == TABLE &&
	    lines(cap->out, cap->nout) != json_array_size(json_object_get(sent, c->list)) + (size_t)c->extra_lines)
		fail(c, cap, "a table without one row per element of its list");
	json_decref(sent);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct feed f = { { data, size, 0 }, 0, 0, 0, NULL, 0 };
	struct captured cap = { NULL, NULL, 0, 0, 0, false, false };
	const struct command *c = &COMMANDS[pick(&f.b, NCOMMANDS)];
	const char *fl;

	run(c, &f, &cap, &fl);
	check(c, &f, &cap, fl);
	free(cap.out);
	free(cap.err);
	free(f.first_body);
	return 0;
}
