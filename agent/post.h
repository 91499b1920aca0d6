/*
 * post.h — send a folded report to `fairway serve` (docs/serve.md).
 *
 * The daemon's health model is smaller than the agent's: its route
 * POST /v1/nodes/{name}/health takes
 *     {"healthy": bool, "badGpus": [index...], "reason": "...", "at": secs}
 * (connectors/serve/codec.c, fw_codec_health_parse).  A node reported
 * unhealthy is drained; badGpus are masked out of placement.  There is
 * no "suspect" in that body, so the mapping (fw_agent_health_body) is:
 *
 *   agent node_health        healthy   badGpus            reason starts
 *   healthy                  true      bad_gpus (empty)   "healthy"
 *   suspect (probation)      true      bad_gpus           "suspect: ..."
 *   unhealthy, draining      false     bad_gpus           "unhealthy: ..."
 *
 * The events of the report (XID codes, uncorrectable ECC counts, NVLink
 * links down) and the suspect GPUs are named in the reason (at most 127
 * bytes, the daemon's limit), so an operator reading GET /v1/nodes sees
 * why.  A GPU made bad by a fatal XID or an ECC error is in badGpus and
 * the node keeps its other GPUs, as in the agent's own model
 * (docs/health.md).  A clean report is the heartbeat: healthy, no bad
 * GPUs, reason "healthy: N GPUs ok".
 *
 * Transport is libcurl, JSON is jansson.  fw_agent_post() reads the
 * bearer token from the token file for every post (a rotated token is
 * picked up), and on failure fills why[] with a sentence that says what
 * to do: the server cannot be reached, the token was refused (naming the
 * file), or the daemon's 4xx/5xx error as it sent it.
 */
#ifndef FAIRWAY_AGENT_POST_H
#define FAIRWAY_AGENT_POST_H

#include <stddef.h>

#include <jansson.h>

#include "codec.h" /* FW_TOKEN_MAX */
#include "report.h"

#define FW_AGENT_REASON_MAX 128 /* the daemon's reason[128] */

struct fw_agent_server {
	const char *url;        /* http://host:port; a trailing / or /v1 is dropped */
	const char *token_file; /* the daemon's bearer token, one line */
};

/* The body for POST /v1/nodes/{r->node}/health, from a folded report. */
json_t *fw_agent_health_body(const struct fw_agent_report *r);

/* Read the token as the daemon reads its own (fw_codec_token_parse: the
 * first line's first word, printable ASCII, never cut).  FW_OK, or
 * FW_ENOENT (cannot be read) / FW_EINVAL / FW_ERANGE with why[] naming the
 * file and what to do. */
int fw_agent_read_token(const char *file, char tok[FW_TOKEN_MAX], char *why, size_t whylen);

/* Is node a name the daemon takes, and so exactly one URL path segment?
 * The daemon's rule (fw_codec_name_check, connectors/serve/codec.c): 1..63
 * bytes of [A-Za-z0-9._-], not "." or "..".  FW_OK, or FW_EINVAL /
 * FW_ERANGE with why[] saying what is wrong ("--node \"..\": must not
 * be ..."); what names the name in that sentence. */
int fw_agent_node_check(const char *node, const char *what, char *why, size_t whylen);

/* Send body for node.  FW_OK on 2xx; else FW_EIO (not reached, 5xx),
 * FW_EINVAL (4xx, or a node fw_agent_node_check refuses: nothing is
 * sent), FW_ENOENT (token file) with why[] filled.
 * curl_global_init must have been called. */
int fw_agent_post(const struct fw_agent_server *s, const char *node, json_t *body, char *why, size_t whylen);

/* Internal, for tests/fuzz/fuzz_agent_post.c: why[] for the daemon's
 * answer of status (3xx, 4xx, 5xx) with body (len bytes, any: the API's
 * {"error": {...}}, a proxy's HTML page, nothing) to node's report: one
 * line of printable bytes (the body's are masked, and cut), naming the
 * server, the status, and what to do for a 401 or 404. */
void fw__agent_refusal(const struct fw_agent_server *s, const char *node, long status, const char *body,
		       size_t len, char *why, size_t whylen);

#endif
