/*
 * client_int.h — the API client's one seam (tools/cmd_client.c), for its
 * fuzz target (tests/fuzz/fuzz_client.c).
 *
 * `fairway queues|jobs|nodes|...` is: flags -> request -> send -> the
 * reply read -> a table or words.  Everything but the send is the
 * client's own code and can be run on bytes: fw__cmd_client_via() is
 * fw_cmd_client() with the transport given, so a test answers each
 * request with what it likes (any status, any body: another version's
 * JSON, a proxy's HTML page, nothing) and holds the rest of the client to
 * its promises: a reply that is not the API's JSON is refused with a
 * clear error (exit 1) rather than printed as an empty or wrong table,
 * and what reaches the terminal carries no control byte from the reply.
 *
 * The daemon's reply is outside input like any other: it is read once,
 * in call_st (cmd_client.c), where a 2xx must be a JSON object and a
 * 4xx/5xx's body, when it is not the API's error, is cut to a line of
 * printable bytes; each listing then checks that its list is there, an
 * array of objects, before the header row (`listing`).
 *
 * Ownership: the send fills r->body with a malloc'd, NUL-terminated body
 * (or NULL for none) that the client frees.
 */
#ifndef FAIRWAY_CLIENT_INT_H
#define FAIRWAY_CLIENT_INT_H

#include <stddef.h>

struct fw__client_reply {
	long status; /* the HTTP status */
	char *body;  /* malloc'd, NUL-terminated; NULL: no body */
	size_t len;  /* the body's bytes, a NUL among them included */
};

/* One request: method, the whole URL, the "Authorization: ..." header
 * (NULL for a GET), the body's Content-Type and the body (both NULL when
 * none).  0 with *r filled, or non-zero when the daemon was not reached,
 * with why[] saying why (libcurl's words). */
typedef int (*fw__client_send_fn)(void *ud, const char *method, const char *url, const char *auth,
				  const char *content_type, const char *payload, struct fw__client_reply *r,
				  char *why, size_t whylen);

/* fw_cmd_client (cmd_serve.h) with the transport send(ud, ...); NULL:
 * libcurl's, as the daemon is reached by `fairway`. */
int fw__cmd_client_via(const char *what, int argc, char **argv, fw__client_send_fn send, void *ud);

#endif
