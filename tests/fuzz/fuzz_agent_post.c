/*
 * fuzz_agent_post.c — libFuzzer target for what fairway-agent reads
 * around its post (agent/post.c): its token file, and the daemon's answer
 * when the report is refused.
 *
 * The first byte's low bit chooses:
 *   0: the rest is a token file's bytes, read as every reader of a token
 *      file reads it (fw_codec_token_parse, connectors/serve/codec.c: the
 *      daemon's --token-file and --agent-token-file, `fairway
 *      --token-file`, the agent's).  A token taken is 1 to FW_TOKEN_MAX-1
 *      bytes of printable ASCII, the file's very first bytes, ended in
 *      the file by a line end, a space, a tab or the end, and reads back
 *      as itself; a file refused says what is wrong and what to write
 *      ("...; write ..."), in printable ASCII, and gives no token.
 *   1: the next byte picks a status (3xx, 4xx, 5xx), the rest is the
 *      answer's body (the API's error object, a proxy's page, nothing):
 *      fw__agent_refusal's sentence is one line of printable bytes
 *      (no control byte or DEL from the body), not cut short, naming the
 *      server and the status, and what to do on a 401.
 * Built with -fsanitize=fuzzer under clang, and as fuzz_replay_agent_post
 * with replay.c over tests/fuzz/corpus/agent_post in every test run.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "fairway/err.h"
#include "post.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const long STATUSES[] = { 301, 400, 401, 404, 409, 413, 500, 502, 503 };

static void no_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			abort();
}

static void token(const char *buf, size_t len)
{
	char tok[FW_TOKEN_MAX], again[FW_TOKEN_MAX];
	struct fw_diag d;
	size_t n;
	int rc;

	memset(&d, 0, sizeof d);
	rc = fw_codec_token_parse(buf, len, tok, &d);
	if (rc != FW_OK) {
		if ((rc != FW_EINVAL && rc != FW_ERANGE) || tok[0] || !strstr(d.msg, "; write "))
			abort();
		no_control(d.msg);
		return;
	}
	n = strlen(tok);
	if (n == 0 || n >= FW_TOKEN_MAX || memcmp(tok, buf, n))
		abort(); /* the file's first bytes, whole */
	if (n < len && !strchr("\r\n \t", buf[n]))
		abort(); /* ended where the file's word ends, never cut */
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)tok[i] < 0x21 || (unsigned char)tok[i] > 0x7e)
			abort();
	if (fw_codec_token_parse(tok, n, again, &d) != FW_OK || strcmp(tok, again))
		abort();
}

static void refusal(const uint8_t *data, size_t size)
{
	const struct fw_agent_server s = { "http://head:8642", "/etc/fairway/agent-token" };
	long status = STATUSES[size ? data[0] % (sizeof STATUSES / sizeof STATUSES[0]) : 0];
	char *body = malloc(size + 1), why[1024], st[16];

	if (!body)
		abort();
	if (size > 1)
		memcpy(body, data + 1, size - 1);
	body[size ? size - 1 : 0] = 0;
	fw__agent_refusal(&s, "gpu-1", status, size > 1 ? body : NULL, size ? size - 1 : 0, why, sizeof why);
	no_control(why);
	snprintf(st, sizeof st, "%ld", status);
	if (strlen(why) >= sizeof why - 1 || !strstr(why, s.url) || !strstr(why, st))
		abort();
	if (status == 401 && !strstr(why, "--agent-token-file"))
		abort();
	free(body);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	if (data[0] & 1)
		refusal(data + 1, size - 1);
	else
		token((const char *)data + 1, size - 1);
	return 0;
}
