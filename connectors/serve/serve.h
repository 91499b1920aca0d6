/*
 * serve.h — `fairway serve`: the scheduling service.
 *
 * A daemon around the pure engine (include/fairway).  Three kinds of
 * thread share one state lock:
 *   - the HTTP threads (libmicrohttpd, http.c) answer the JSON API
 *     (api.c): reads copy out of the last published view, writes validate
 *     completely, then change the model and the store in one transaction;
 *   - the cycle thread (daemon.c) runs a cycle every period and whenever
 *     POST /v1/cycle asks: it takes a snapshot under the lock, plans
 *     WITHOUT the lock (the API keeps answering), and applies the plan
 *     under the lock only if neither the daemon's generation (queues,
 *     reservations, health) nor the backend's (jobs, nodes) has moved
 *     since the snapshot; otherwise it plans again;
 *   - main() waits for SIGINT/SIGTERM.
 * The model (queues, reservations, health reports) lives in memory and in
 * the store (store.h); the world (nodes, jobs) belongs to the backend
 * (backend.h).
 *
 * Errors: fw_serve_run() returns a process exit code (0 clean stop, 2 bad
 * options or config, 1 runtime failure) after printing the reason.
 */
#ifndef FAIRWAY_SERVE_H
#define FAIRWAY_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "backend.h"

struct fw_serve_opts {
	const char *config_path;          /* NULL: the embedded YAML below */
	const char *embedded_yaml;
	size_t embedded_len;
	const char *listen_host;          /* default 127.0.0.1 */
	int port;                         /* default 8642; 0 = any free port */
	const char *state_dir;            /* default ./fairway-state */
	const char *token_file;           /* NULL: DIR/token, created 0600 */
	const char *agent_token_file;     /* the token that may only report node
					   * health; NULL: DIR/agent-token, created
					   * 0600 */
	double period_s;                  /* default 1 */
	const struct fw_backend_ops *backend;
	const char *backend_opts;         /* --backend-opt K=V, comma-joined; NULL: none */
	const char *policy;               /* NULL: the default policy */
	bool sync_full;
	int64_t log_keep_s;               /* --log-keep: decision-log and
					   * usage_history rows older than this
					   * are deleted; 0 (default) keeps all */
	const char *port_file;            /* write the bound port here */
};

int fw_serve_run(const struct fw_serve_opts *o);

/* The routes the API serves, one "METHOD PATH" per line (for the OpenAPI
 * test and for --help). */
void fw_serve_print_routes(FILE *f);

#endif
